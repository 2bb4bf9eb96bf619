/*
 * Stands in for GraalVM's `native-image` launcher, which no registry this project reaches publishes: it turns the
 * native-image.args that Quarkus writes into <service>/target/native-sources/ into a command line for the GraalVM
 * builder (org.graalvm.nativeimage:svm from Maven Central) running on the machine's Temurin 25 with JVMCI, and runs
 * it. Launched by scripts/native-image.sh as a single-file program (java NativeImageDriver.java ...).
 *
 * Only the launcher options that Quarkus and the libraries on the image classpath use are translated; any other
 * `--option` stops the build with its name, so that a new one is added here deliberately, never dropped silently.
 *
 * Usage: NativeImageDriver <native-sources dir> <builder module path> <builder classpath file> <output dir>
 *        [--analysis-only] [--c-library-path=DIR] [--xmx=SIZE] [extra builder options ...]
 */

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.HashSet;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Pattern;

public final class NativeImageDriver {

    /** The GraalVM release of the builder jars (native/builder/pom.xml); checked against the jars themselves. */
    static final String GRAALVM_VERSION = "25.0.2";

    /**
     * On GraalVM's own JDK the system modules export their internals to the builder's modules in their module-info;
     * on a plain JDK these qualified exports say the same: every package a system module does not export to all,
     * to the builder's modules only (the application's classes get none of them).
     */
    static List<String> builderExports(String builderModulePath) {
        // The builder's own modules: every module on its module paths (svm, pointsto, configure, the compiler, ...).
        List<String> builderModules = ModuleFinder.of(Arrays.stream(builderModulePath.split(":")).map(Path::of)
                .toArray(Path[]::new)).findAll().stream().map(m -> m.descriptor().name()).sorted().toList();
        List<String> exports = new ArrayList<>();
        // The modules the builder's JVM resolves: the default set (as in this launcher's own boot layer) and JVMCI;
        // an export from any other module only draws a warning.
        ModuleFinder.ofSystem().findAll().stream().map(m -> m.descriptor())
                .filter(m -> ModuleLayer.boot().findModule(m.name()).isPresent() || m.name().equals("jdk.internal.vm.ci"))
                .sorted((a, b) -> a.name().compareTo(b.name()))
                .forEach(module -> {
                    Set<String> exported = new HashSet<>();
                    module.exports().stream().filter(e -> !e.isQualified()).forEach(e -> exported.add(e.source()));
                    module.packages().stream().sorted().filter(p -> !exported.contains(p)).forEach(p -> exports.add(
                            "--add-exports=" + module.name() + "/" + p + "=" + String.join(",", builderModules)));
                });
        return exports;
    }

    /** Configuration files a library may carry under META-INF/native-image/, and the builder option for each. */
    static final List<String[]> CONFIG_FILES = List.of(
            new String[] {"reflect-config.json", "ReflectionConfigurationResources"},
            new String[] {"proxy-config.json", "DynamicProxyConfigurationResources"},
            new String[] {"serialization-config.json", "SerializationConfigurationResources"},
            new String[] {"resource-config.json", "ResourceConfigurationResources"},
            new String[] {"jni-config.json", "JNIConfigurationResources"},
            new String[] {"reachability-metadata.json", "ReachabilityMetadataResources"},
            new String[] {"predefined-classes-config.json", "PredefinedClassesConfigurationResources"});

    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> builderArgs = new ArrayList<>();
    private final List<String> imageClasspath = new ArrayList<>();
    private final List<Pattern[]> excludedConfigs = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: NativeImageDriver <native-sources dir> <builder module path> "
                    + "<upgrade module path> <output dir> [--analysis-only] [--c-library-path=DIR] [--xmx=SIZE] [-H:...]");
            System.exit(2);
        }
        System.exit(new NativeImageDriver().run(args));
    }

    int run(String[] args) throws Exception {
        Path sources = Path.of(args[0]).toAbsolutePath();
        String modulePath = args[1];
        String upgradeModulePath = args[2];
        Path output = Path.of(args[3]).toAbsolutePath();
        boolean analysisOnly = false;
        String xmx = "6g";
        List<String> extra = new ArrayList<>();
        for (int i = 4; i < args.length; i++) {
            if (args[i].equals("--analysis-only")) {
                analysisOnly = true;
            } else if (args[i].startsWith("--c-library-path=")) {
                builderArgs.add("-H:CLibraryPath=" + args[i].substring("--c-library-path=".length()));
            } else if (args[i].startsWith("--xmx=")) {
                xmx = args[i].substring("--xmx=".length());
            } else {
                extra.add(args[i]);
            }
        }
        checkBuilderVersion(modulePath + ":" + upgradeModulePath);

        String argsFile = Files.readString(sources.resolve("native-image.args")).strip();
        List<String> quarkusArgs = List.of(argsFile.split("\\s+"));
        String imageName = translate(quarkusArgs, sources);
        if (imageName == null) {
            throw new IllegalArgumentException("native-image.args names no image");
        }
        for (String jar : List.copyOf(imageClasspath)) {
            addLibraryConfiguration(Path.of(jar));
        }
        Files.createDirectories(output);

        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-XX:+UseParallelGC", "-XX:+UnlockExperimentalVMOptions", "-XX:+EnableJVMCI",
                "-XX:-UseJVMCICompiler", "-Xss10m", "-Xmx" + xmx, "-XX:+ExitOnOutOfMemoryError",
                "-Djava.awt.headless=true",
                // As GraalVM's launcher: the builder's module may call native code. The image copies this flag to
                // its own modules, and without it the image's first System.loadLibrary("java") takes the
                // restricted-method warning path, which reads a file attribute through libjava before the image
                // has initialised libjava's platform encoding, and the isolate fails to start.
                "--enable-native-access=org.graalvm.nativeimage.builder",
                "-Dorg.graalvm.version=" + GRAALVM_VERSION,
                "-Dorg.graalvm.vendor=GraalVM Community (Maven Central builder)",
                // Quarkus parses this to learn the builder's version (it must look like GraalVM's own).
                "-Dorg.graalvm.vendorversion=GraalVM CE " + Runtime.version() + " (builder " + GRAALVM_VERSION + ")",
                "-Dcom.oracle.graalvm.isaot=true",
                "-Dorg.graalvm.nativeimage.imagecode=buildtime",
                "-Djava.system.class.loader=com.oracle.svm.hosted.NativeImageSystemClassLoader",
                "-Djdk.internal.lambda.disableEagerInitialization=true",
                "-Djdk.internal.lambda.eagerlyInitialize=false",
                "-Djava.lang.invoke.InnerClassLambdaMetafactory.initializeLambdas=false",
                "-Dsubstratevm.HostLibC=glibc"));
        // Thousands of exports: the JVM reads them from an argument file.
        Path exportsFile = output.resolve("builder-exports.args");
        Files.write(exportsFile, builderExports(modulePath + ":" + upgradeModulePath));
        command.add("@" + exportsFile);
        command.addAll(jvmArgs);
        command.addAll(List.of("--module-path", modulePath, "--upgrade-module-path", upgradeModulePath,
                "--add-modules=ALL-DEFAULT",
                "-m", "org.graalvm.nativeimage.builder/com.oracle.svm.hosted.NativeImageGeneratorRunner",
                "-imagecp", String.join(":", imageClasspath)));
        command.addAll(builderArgs);
        command.add("-H:Path=" + output);
        command.add("-H:Name=" + imageName);
        command.add("-H:ImageBuildID=" + UUID.randomUUID());
        if (analysisOnly) {
            // Stops after the points-to analysis and the image heap scan: every reachability, linking and
            // image-heap error a full build reports, in about half its time and without a C toolchain.
            command.add("-H:+UnlockExperimentalVMOptions");
            command.add("-H:+ReturnAfterAnalysis");
            command.add("-H:-UnlockExperimentalVMOptions");
        }
        command.addAll(extra);

        if (System.getenv("NATIVE_DRIVER_VERBOSE") != null) {
            System.err.println(String.join(" \\\n  ", command));
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(sources.toFile()).inheritIO();
        return builder.start().waitFor();
    }

    /** Translates launcher options into builder options; returns the image name they give, if any. */
    private String translate(List<String> args, Path sources) throws IOException {
        String imageName = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.startsWith("-J")) {
                jvmArgs.add(arg.substring(2));
            } else if (arg.startsWith("-H:") || arg.startsWith("-R:")) {
                builderArgs.add(arg);
            } else if (arg.equals("-jar")) {
                Path jar = sources.resolve(args.get(++i));
                addJar(jar);
            } else if (arg.equals("--exclude-config")) {
                excludedConfigs.add(new Pattern[] {Pattern.compile(args.get(++i)), Pattern.compile(args.get(++i))});
            } else if (arg.equals("--no-fallback")) {
                builderArgs.add("-H:FallbackThreshold=0");
            } else if (arg.equals("--link-at-build-time")) {
                builderArgs.add("-H:LinkAtBuildTime=");
            } else if (arg.startsWith("--features=")) {
                builderArgs.add("-H:Features=" + value(arg));
            } else if (arg.startsWith("--enable-url-protocols=")) {
                builderArgs.add("-H:EnableURLProtocols=" + value(arg));
            } else if (arg.startsWith("--enable-monitoring=")) {
                builderArgs.add("-H:EnableMonitoringFeatures=" + value(arg));
            } else if (arg.startsWith("--enable-native-access=")) {
                builderArgs.add("-H:EnableNativeAccess=" + value(arg));
            } else if (arg.startsWith("--initialize-at-run-time=")) {
                classInitialization(value(arg), "run_time");
            } else if (arg.startsWith("--initialize-at-build-time=")) {
                classInitialization(value(arg), "build_time");
            } else if (arg.startsWith("-")) {
                throw new IllegalArgumentException("native-image option not known to this driver: " + arg
                        + " (add its translation to native/NativeImageDriver.java)");
            } else {
                imageName = arg;
            }
        }
        return imageName;
    }

    private void classInitialization(String classes, String when) {
        for (String name : classes.split(",")) {
            if (!name.isBlank()) {
                builderArgs.add("-H:ClassInitialization=" + name.strip() + ":" + when);
            }
        }
    }

    private static String value(String arg) {
        return arg.substring(arg.indexOf('=') + 1);
    }

    /** The jar, the jars its manifest's Class-Path names, and its Main-Class as the image's entry point. */
    private void addJar(Path jar) throws IOException {
        imageClasspath.add(jar.toString());
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String classPath = manifest.getMainAttributes().getValue("Class-Path");
            if (classPath != null) {
                for (String entry : classPath.trim().split("\\s+")) {
                    imageClasspath.add(jar.getParent().resolve(entry).normalize().toString());
                }
            }
            // As `java -jar` does: the jar asks for access to JDK internals (Quarkus's runner jar asks for
            // java.lang, which jboss-threads' class initialisers need while the builder runs them).
            for (String[] access : new String[][] {{"Add-Opens", "--add-opens="}, {"Add-Exports", "--add-exports="}}) {
                String packages = manifest.getMainAttributes().getValue(access[0]);
                if (packages != null) {
                    for (String modulePackage : packages.trim().split("\\s+")) {
                        jvmArgs.add(access[1] + modulePackage + "=ALL-UNNAMED");
                    }
                }
            }
            String main = manifest.getMainAttributes().getValue("Main-Class");
            if (main != null) {
                builderArgs.add("-H:Class=" + main);
            }
        }
    }

    /**
     * What GraalVM's launcher reads from each jar's META-INF/native-image/: the Args of native-image.properties and
     * the configuration files, less what an --exclude-config pair (jar pattern, resource pattern) excludes.
     */
    private void addLibraryConfiguration(Path jar) throws IOException {
        if (!Files.isRegularFile(jar)) {
            return;
        }
        try (JarFile file = new JarFile(jar.toFile())) {
            List<String> entries = file.stream().map(e -> e.getName())
                    .filter(n -> n.startsWith("META-INF/native-image/") && !n.endsWith("/")).sorted().toList();
            for (String entry : entries) {
                if (excluded(jar, entry)) {
                    continue;
                }
                String fileName = entry.substring(entry.lastIndexOf('/') + 1);
                if (fileName.equals("native-image.properties")) {
                    Properties properties = new Properties();
                    try (InputStream in = file.getInputStream(file.getEntry(entry))) {
                        properties.load(in);
                    }
                    String libraryArgs = properties.getProperty("Args");
                    if (libraryArgs != null && !libraryArgs.isBlank()) {
                        translate(List.of(libraryArgs.strip().split("\\s+")), jar.getParent());
                    }
                    String javaArgs = properties.getProperty("JavaArgs");
                    if (javaArgs != null && !javaArgs.isBlank()) {
                        jvmArgs.addAll(List.of(javaArgs.strip().split("\\s+")));
                    }
                    continue;
                }
                for (String[] config : CONFIG_FILES) {
                    if (fileName.equals(config[0])) {
                        builderArgs.add("-H:" + config[1] + "=" + entry);
                    }
                }
            }
        }
    }

    private boolean excluded(Path jar, String entry) {
        for (Pattern[] pair : excludedConfigs) {
            if (pair[0].matcher(jar.toString()).find() && pair[1].matcher("/" + entry).find()) {
                return true;
            }
        }
        return false;
    }

    /** The builder jars must be the release this driver and the project's C layer were written for. */
    private static void checkBuilderVersion(String path) {
        String expected = "svm-" + GRAALVM_VERSION + ".jar";
        for (String entry : path.split(":")) {
            String jar = Path.of(entry).getFileName().toString();
            if (jar.matches("svm-[0-9].*\\.jar") && !jar.equals(expected)) {
                System.err.println("native: the builder is " + jar + ", this driver is for "
                        + expected + " (native/builder/pom.xml and GRAALVM_VERSION in native/NativeImageDriver.java "
                        + "change together)");
                System.exit(3);
            }
        }
        int feature = Runtime.version().feature();
        if (feature != 25) {
            System.err.println("native: the builder " + GRAALVM_VERSION + " runs on a JDK 25 with JVMCI, this is "
                    + Runtime.version() + " (set NATIVE_JAVA_HOME to a Temurin 25)");
            System.exit(3);
        }
    }
}
