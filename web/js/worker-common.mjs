// What the playground's two run workers share (python-worker.mjs and script-worker.mjs): the capped output streams
// and the doors closed before code from the repository or the model runs.

/** The error every closed door throws. */
export function refused(what) {
  return new TypeError(`${what} is not available: code run in this tab has no network and cannot reach the page`);
}

/**
 * Bytes written to one stream, bounded: the first and last halves of the limit are kept (a program prints
 * its error last), with the same marker as the runner server's.
 */
export class Capped {
  constructor(limit) {
    this.limit = limit;
    this.headRoom = Math.floor(limit / 2);
    this.tailCap = limit - this.headRoom;
    this.head = [];
    this.headLen = 0;
    this.tail = [];
    this.tailLen = 0;
    this.total = 0;
  }

  push(bytes) {
    this.total += bytes.length;
    const toHead = Math.min(this.headRoom - this.headLen, bytes.length);
    if (toHead > 0) {
      this.head.push(bytes.slice(0, toHead));
      this.headLen += toHead;
    }
    const rest = bytes.subarray(toHead);
    if (rest.length === 0) return;
    this.tail.push(rest.slice());
    this.tailLen += rest.length;
    while (this.tailLen - this.tail[0].length >= this.tailCap) this.tailLen -= this.tail.shift().length;
  }

  /** The kept text and whether anything was cut. */
  text() {
    const cut = this.total - this.headLen - Math.min(this.tailLen, this.tailCap);
    let tail = concat(this.tail, this.tailLen);
    if (tail.length > this.tailCap) tail = tail.subarray(tail.length - this.tailCap);
    const marker = new TextEncoder().encode(cut > 0 ? `\n[... ${cut} bytes cut by the runner ...]\n` : "");
    const all = concat([concat(this.head, this.headLen), marker, tail]);
    return { text: new TextDecoder().decode(all), truncated: cut > 0 };
  }
}

function concat(parts, length = parts.reduce((n, p) => n + p.length, 0)) {
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A stand-in for something closed: calling or constructing it throws why. */
export function door(what) {
  return function closed() {
    throw refused(what);
  };
}

/** Removes `name` from the global object's prototypes and pins it on the global object to `value` for good. */
export function pin(target, name, value) {
  for (let o = Object.getPrototypeOf(target); o; o = Object.getPrototypeOf(o)) {
    if (Object.prototype.hasOwnProperty.call(o, name)) delete o[name];
  }
  Object.defineProperty(target, name, { value, writable: false, configurable: false });
}

