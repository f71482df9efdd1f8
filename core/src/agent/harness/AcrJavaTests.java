// The Java test harness of acr-wasm: compiles every .java file of the repository (sources and tests) with the JDK's
// compiler into a private folder, runs the JUnit tests found there with the JUnit Platform, and reports one line per
// test on standard output (PASS or FAIL, the class and method), and each failure's exception with the repository's
// frames of its stack trace on standard error, the failures' summary last. Exit status: 0 when every test passed,
// 1 when a test failed, 2 when the code does not compile. Run in source-file mode with JUnit's console launcher jar
// on the class path: java -cp junit-platform-console-standalone.jar .acr/AcrJavaTests.java
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

public class AcrJavaTests {
    public static void main(String[] args) throws Exception {
        Path root = Paths.get("").toAbsolutePath();
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

    /** Whether a stack frame is the repository's code rather than the JDK's or JUnit's. */
    static boolean ours(StackTraceElement frame) {
        String c = frame.getClassName();
        return !(c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun.") || c.startsWith("org.junit.")
            || c.startsWith("com.sun.") || c.startsWith("org.opentest4j.") || c.startsWith("AcrJavaTests"));
    }
}
