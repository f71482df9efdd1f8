// The Java test harness of acr-wasm: compiles every .java file of the repository (sources and tests) with the JDK's
// compiler into a private folder, runs the JUnit tests found there with the JUnit Platform, and reports one line per
// test on standard output (PASS or FAIL, the class and method), and each failure's exception with the repository's
// frames of its stack trace on standard error, the failures' summary last. Exit status: 0 when every test passed,
// 1 when a test failed, 2 when the code does not compile. Run in source-file mode with JUnit's console launcher jar
// on the class path: java -cp junit-platform-console-standalone.jar .acr/AcrJavaTests.java
//
// A repository with a pom.xml is built and tested by Maven instead when `mvn` is on the PATH: offline, with the
// system's Maven repository (Debian's /usr/share/maven-repo) when there is one, tests run inside Maven's process;
// the same lines are then read from Surefire's reports. When Maven cannot build the project offline (a plugin or a
// dependency it does not have), the harness says so and compiles with javac as above.
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

public class AcrJavaTests {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get("").toAbsolutePath();
        if (Files.isRegularFile(root.resolve("pom.xml")) && onPath("mvn")) {
            Integer status = maven(root);
            if (status != null) {
                System.exit(status);
            }
        }
        Path classes = Files.createTempDirectory("acr-classes");
        if (!compile(root, classes)) {
            System.exit(2);
        }
        URLClassLoader loader =
            new URLClassLoader(new URL[] {classes.toUri().toURL()}, AcrJavaTests.class.getClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
            .selectors(DiscoverySelectors.selectClasspathRoots(Set.of(classes)))
            .build();
        List<String> failures = new ArrayList<>();
        int[] passed = {0};
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                boolean ok = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
                if (ok && !id.isTest()) {
                    return;
                }
                String name = name(id);
                if (ok) {
                    passed[0]++;
                    System.out.println("PASS " + name);
                    return;
                }
                Throwable error = result.getThrowable().orElse(null);
                String why = error == null ? result.getStatus().toString() : error.getClass().getSimpleName()
                    + (error.getMessage() == null ? "" : ": " + error.getMessage().strip().replace('\n', ' '));
                System.out.println("FAIL " + name + " " + why);
                failures.add("FAIL " + name + " " + why);
                if (error != null) {
                    System.err.println(name + ": " + error);
                    for (StackTraceElement frame : error.getStackTrace()) {
                        if (ours(frame)) {
                            System.err.println("\tat " + frame);
                        }
                    }
                }
            }
        });
        Collections.sort(failures);
        failures.forEach(System.err::println);
        System.out.println(passed[0] + " passed, " + failures.size() + " failed");
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    /** Whether an executable of this name is on the PATH. */
    static boolean onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String dir : path.split(File.pathSeparator)) {
            if (Files.isExecutable(Paths.get(dir, name))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Builds and tests the project with Maven, offline; reports from Surefire's XML. The exit status, or null when
     * Maven could not build the project offline (then the caller compiles with javac).
     */
    static Integer maven(Path root) throws Exception {
        List<String> command = new ArrayList<>(List.of("mvn", "-o", "-B", "-q", "-DforkCount=0",
            "-DtrimStackTrace=false", "-Dsurefire.useFile=false", "-Dmaven.test.failure.ignore=true"));
        Path system = Paths.get("/usr/share/maven-repo");
        if (Files.isDirectory(system)) {
            command.add("-Dmaven.repo.local=" + system);
        }
        command.add("test");
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true);
        // Sized like this harness's own JVM, to run inside the runner's address-space limit.
        builder.environment().put("MAVEN_OPTS", "-Xmx256m -Xss1m -XX:ReservedCodeCacheSize=48m "
            + "-XX:CompressedClassSpaceSize=48m -XX:MaxMetaspaceSize=160m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "
            + "-XX:ActiveProcessorCount=1");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        if (output.contains("COMPILATION ERROR")) {
            output.lines().filter(l -> l.contains("[ERROR] /") && l.contains(".java:"))
                .map(l -> l.substring(l.indexOf("[ERROR] ") + 8).replace(root + File.separator, ""))
                .distinct().forEach(System.err::println);
            System.err.println("the code does not compile (built by Maven)");
            return 2;
        }
        Path reports = root.resolve("target/surefire-reports");
        List<Path> files = new ArrayList<>();
        if (Files.isDirectory(reports)) {
            try (Stream<Path> list = Files.list(reports)) {
                list.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().forEach(files::add);
            }
        }
        if (files.isEmpty() && status != 0) {
            System.err.println("Maven could not build the project offline (exit status " + status
                + "); compiling with javac instead. Maven said:");
            List<String> said = output.lines().filter(l -> l.contains("[ERROR] "))
                .map(l -> l.substring(l.indexOf("[ERROR] ") + 8).strip())
                .filter(l -> !l.isEmpty() && !l.startsWith("To see") && !l.startsWith("Re-run")
                    && !l.startsWith("For more") && !l.startsWith("[Help"))
                .limit(3).collect(Collectors.toList());
            if (said.isEmpty()) {
                List<String> all = output.lines().filter(l -> !l.isBlank()).collect(Collectors.toList());
                said = all.subList(Math.max(0, all.size() - 5), all.size());
            }
            said.forEach(l -> System.err.println("  " + l));
            return null;
        }
        System.out.println("Maven built the project and ran its tests");
        List<String> failures = new ArrayList<>();
        int passed = 0;
        for (Path file : files) {
            Document report = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
            NodeList cases = report.getElementsByTagName("testcase");
            for (int i = 0; i < cases.getLength(); i++) {
                Element testcase = (Element) cases.item(i);
                String name = testcase.getAttribute("classname") + "." + testcase.getAttribute("name");
                Element problem = first(testcase, "failure");
                if (problem == null) {
                    problem = first(testcase, "error");
                }
                if (problem == null) {
                    if (first(testcase, "skipped") == null) {
                        passed++;
                        System.out.println("PASS " + name);
                    }
                    continue;
                }
                String type = problem.getAttribute("type");
                String simple = type.substring(type.lastIndexOf('.') + 1);
                String message = problem.getAttribute("message").strip().replace('\n', ' ');
                String why = simple + (message.isEmpty() ? "" : ": " + message);
                System.out.println("FAIL " + name + " " + why);
                failures.add("FAIL " + name + " " + why);
                System.err.println(name + ": " + type + (message.isEmpty() ? "" : ": " + message));
                problem.getTextContent().lines().map(String::strip).filter(l -> l.startsWith("at "))
                    .filter(l -> ours(l.substring(3))).forEach(l -> System.err.println("\t" + l));
            }
        }
        Collections.sort(failures);
        failures.forEach(System.err::println);
        System.out.println(passed + " passed, " + failures.size() + " failed");
        return failures.isEmpty() ? 0 : 1;
    }

    /** The first child element of this name, or null. */
    static Element first(Element parent, String tag) {
        NodeList found = parent.getElementsByTagName(tag);
        return found.getLength() == 0 ? null : (Element) found.item(0);
    }

    /** Compiles every .java file under the root but the harness's own folder; prints the errors when it fails. */
    static boolean compile(Path root, Path classes) throws IOException {
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(root)) {
            sources = walk.filter(p -> p.toString().endsWith(".java") && Files.isRegularFile(p))
                .filter(p -> !root.relativize(p).startsWith(".acr"))
                .sorted()
                .collect(Collectors.toList());
        }
        if (sources.isEmpty()) {
            return true;
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of("-d", classes.toString(), "-cp", System.getProperty("java.class.path"),
                "-nowarn", "-proc:none", "-g");
            boolean ok = javac.getTask(null, files, diagnostics, options, null,
                files.getJavaFileObjectsFromPaths(sources)).call();
            if (!ok) {
                for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                    if (d.getKind() == Diagnostic.Kind.ERROR) {
                        String file = d.getSource() == null ? "?" : root.relativize(Paths.get(d.getSource().toUri())).toString();
                        System.err.println(file + ":" + d.getLineNumber() + ": error: " + d.getMessage(null));
                    }
                }
                System.err.println("the code does not compile");
            }
            return ok;
        }
    }

    /** The test's class and method, or its display name. */
    static String name(TestIdentifier id) {
        TestSource source = id.getSource().orElse(null);
        if (source instanceof MethodSource) {
            MethodSource m = (MethodSource) source;
            return m.getClassName() + "." + m.getMethodName();
        }
        if (source instanceof ClassSource) {
            return ((ClassSource) source).getClassName();
        }
        return id.getDisplayName();
    }

    /** Whether a stack frame is the repository's code rather than the JDK's, JUnit's or Maven's. */
    static boolean ours(StackTraceElement frame) {
        return ours(frame.getClassName());
    }

    /** Whether a frame (`class.method(File.java:1)`, or a class name) is the repository's code. */
    static boolean ours(String frame) {
        return !(frame.startsWith("java.") || frame.startsWith("jdk.") || frame.startsWith("sun.")
            || frame.startsWith("org.junit.") || frame.startsWith("com.sun.") || frame.startsWith("org.opentest4j.")
            || frame.startsWith("org.apache.maven.") || frame.startsWith("org.codehaus.")
            || frame.startsWith("AcrJavaTests"));
    }
}
