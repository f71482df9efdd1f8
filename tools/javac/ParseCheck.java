// Runs javac's parser (and nothing after it) over Java files and prints its verdict on each, one line per file:
// `OK<TAB>path` or `ERR<TAB>line<TAB>message<TAB>path` (the first error). Paths are read from standard input, one per
// line. Used by core/tests/gate_javac.rs to measure the Java syntax gate against javac:
//     find src -name '*.java' | java tools/javac/ParseCheck.java
import com.sun.source.util.JavacTask;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class ParseCheck {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String path;
        while ((path = in.readLine()) != null) {
            if (path.isBlank()) {
                continue;
            }
            DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
            JavacTask task = (JavacTask) compiler.getTask(null, files, diagnostics, List.of("-proc:none"), null,
                    files.getJavaFileObjects(path));
            task.parse();
            Diagnostic<? extends JavaFileObject> first = null;
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    first = d;
                    break;
                }
            }
            if (first == null) {
                System.out.println("OK\t" + path);
            } else {
                String message = first.getMessage(null).split("\n")[0].replace('\t', ' ');
                System.out.println("ERR\t" + first.getLineNumber() + "\t" + message + "\t" + path);
            }
        }
    }
}
