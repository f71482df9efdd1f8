// The demo repair in the page against every server dialect `acr serve-model --dialect` plays (OpenAI, Ollama, vLLM,
// LM Studio, llama.cpp), streamed and not, with a reasoning model's answers: the same patch in every cell, the
// thinking shown apart (collapsed) wherever the server put it, and the token meter marked as estimated only where
// the server sent no counts. The same matrix runs natively in cli/tests/dialects.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { OUT, ROOT, servedPlayground, serveModel, acrHas, useRunner } from "./harness.mjs";

const SCRIPT = join(ROOT, "tests", "fixtures", "scripts", "demo-reasoning.json");
const DIALECTS = ["openai", "ollama", "vllm", "lmstudio", "llamacpp"];

const playground = servedPlayground();

/** A new page (closed after the test) with the demo repository loaded, set to run against `model` as `provider`
 * without executions (the script writes no reproducer; executions are tested elsewhere); page errors are collected. */
async function demoPageAgainst(t, model, provider) {
  const page = await playground.browser.ctx.newPage();
  t.after(() => page.close());
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(playground.server.url);
  await page.click("#demo-button");
  await page.waitForSelector("#stats");
  await page.selectOption("#provider", provider);
  await page.fill("#base-url", model.url);
  await page.fill("#model-name", "scripted");
  await useRunner(page, "none");
  return { page, errors };
}

for (const dialect of DIALECTS) {
  for (const stream of [false, true]) {
    test(`the demo repair against ${dialect}${stream ? ", streamed" : ""}`, async (t) => {
      if (!acrHas("serve-model")) return t.skip("this acr has no serve-model subcommand");
      const model = await serveModel(SCRIPT, ["--dialect", dialect]); // each server plays its script once
      t.after(() => model.close());
      const { page, errors } = await demoPageAgainst(t, model, "custom");
      if (stream) await page.check("#stream");
      else await page.uncheck("#stream");
      await page.click("#run-button");
      await page.waitForSelector("#run-status.ok, #run-error", { timeout: 60000 });
      assert.match(await page.textContent("#run-status"), /an applicable patch/);
      const diff = await page.textContent("#diff");
      assert.ok(diff.includes("+            total += item.price_cents * units"), diff);
      assert.ok(!diff.includes("+ units"), `the edit drafted while thinking was applied:\n${diff}`);
      await page.click("#tab-transcript");
      const answers = await page.locator("#transcript .ev.model .answer-line").allTextContents();
      assert.ok(answers.length >= 4 && answers.every((a) => !a.includes("think>")), answers.join("\n"));
      const thinking = await page.locator("#transcript .ev.model details.reasoning").count();
      assert.ok(thinking >= 3, `thinking shown apart in ${thinking} answers`);
      const tokens = await page.textContent("#count-tokens");
      assert.equal(tokens.startsWith("~"), stream && dialect === "lmstudio", `token meter: ${tokens}`);
      assert.deepEqual(errors, []);
    });
  }
}

test("a context window set in the page leaves old results out instead of overflowing the server", async (t) => {
  if (!acrHas("serve-model")) return t.skip("this acr has no serve-model subcommand");
  // The server refuses prompts over 900 tokens; the demo's decide request is about 940.
  const model = await serveModel(SCRIPT, ["--dialect", "vllm", "--context-window", "900"]);
  t.after(() => model.close());
  const { page, errors } = await demoPageAgainst(t, model, "vllm");
  await page.fill("#context-window", "1,900");
  assert.match(await page.textContent("#context-hint"), /Small: .* under 1900/);
  await page.click("#run-button");
  await page.waitForSelector("#run-status.ok, #run-error", { timeout: 60000 });
  assert.match(await page.textContent("#run-status"), /an applicable patch/);
  await page.click("#tab-transcript");
  const notes = await page.locator("#transcript .ev.note").allTextContents();
  assert.ok(notes.some((n) => /left out to fit the context window/.test(n)), notes.join("\n"));
  assert.deepEqual(errors, []);
});

// Tools ticked in the page, answers streamed: searches become tool calls, listed under the answer that made them, in
// the dialects whose servers take tools; where the server refuses them (vLLM and llama.cpp by default), the run says
// so in the transcript and finishes with calls written in the text. Same patch in every dialect.
for (const dialect of DIALECTS) {
  const takesTools = !["vllm", "llamacpp"].includes(dialect);
  test(`search by tool calls against ${dialect}`, async (t) => {
    if (!acrHas("serve-model")) return t.skip("this acr has no serve-model subcommand");
    const model = await serveModel(SCRIPT, ["--dialect", dialect]);
    t.after(() => model.close());
    const { page, errors } = await demoPageAgainst(t, model, "custom");
    await page.check("#stream");
    await page.check("#tools");
    await page.click("#run-button");
    await page.waitForSelector("#run-status.ok, #run-error", { timeout: 60000 });
    assert.match(await page.textContent("#run-status"), /an applicable patch/);
    assert.ok((await page.textContent("#diff")).includes("+            total += item.price_cents * units"));
    await page.click("#tab-transcript");
    const calls = await page.locator("#transcript .ev.model ul.tool-calls code").allTextContents();
    const notes = await page.locator("#transcript .ev.note").allTextContents();
    const refused = notes.filter((n) => /does not take tools/.test(n));
    if (takesTools) {
      assert.ok(calls.length >= 2 && calls.every((c) => /^(search_|get_)\w+\(/.test(c)), calls.join("\n"));
      assert.deepEqual(refused, []);
      if (dialect === "openai") {
        // The first answer opened on its tool calls, for the README.
        const first = page.locator("#transcript .ev.model details").first();
        await first.evaluate((d) => { d.open = true; d.scrollIntoView({ block: "start" }); });
        await page.screenshot({ path: join(OUT, "tools.png") });
      }
    } else {
      assert.deepEqual(calls, []);
      assert.equal(refused.length, 1, notes.join("\n"));
    }
    assert.deepEqual(errors, []);
  });
}
