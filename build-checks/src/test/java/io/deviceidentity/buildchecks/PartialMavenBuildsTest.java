package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * Every Maven command that builds part of the reactor ({@code -pl}/{@code --projects}) in the Makefile, scripts/,
 * k8s/ and the workflows either builds what those modules need ({@code -am}/{@code --also-make}) or names only
 * modules whose dependencies, test scope included, are all released artifacts. Without {@code -am} Maven resolves a
 * sibling module from the local repository, where nothing installed it on a fresh runner, and {@code -DskipTests}
 * still compiles the tests: such a step fails on its first run.
 */
class PartialMavenBuildsTest {

    private static final String GROUP = "io.deviceidentity";
    /** A Maven invocation: the mvn binary or the Makefile's and scripts' variable for it. */
    private static final Pattern MAVEN = Pattern.compile("(^|[\\s(;&|\"'])(mvn|\\$\\(MVN\\)|\\$\\{?MVN\\}?)(?=\\s)");
    private static final Pattern PROJECTS = Pattern.compile("(?:^|\\s)(?:-pl|--projects)(?:\\s+|=)(\"[^\"]*\"|'[^']*'|\\S+)");
    private static final Pattern ALSO_MAKE = Pattern.compile("(?:^|\\s)(?:-am|--also-make)(?=\\s|$|[\"');])");

    record Command(String where, String text) {
    }

    @Test
    void everyPartialBuildAlsoMakesTheModulesItNeeds() {
        Map<String, Set<String>> reactor = reactorDependencies();
        List<String> problems = new ArrayList<>();
        List<Command> partial = partialBuilds();
        assertFalse(partial.isEmpty(), "no mvn -pl command found: the scan is broken");
        for (Command command : partial) {
            String problem = problem(command.text(), reactor);
            if (problem != null) {
                problems.add(command.where() + ": " + problem + "\n    " + command.text());
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    @Test
    void aProbeBuildWithoutAlsoMakeIsRefusedAndOneWithItPasses() {
        Map<String, Set<String>> reactor = reactorDependencies();
        assertTrue(reactor.get("qos2-probe").contains("test-support"), reactor.toString());
        String refusal = problem("mvn -B -q -DskipTests package -pl qos2-probe", reactor);
        assertEquals("-pl qos2-probe without -am, but qos2-probe needs the reactor's test-support", refusal);
        assertEquals(refusal, problem("(cd \"$ROOT\" && mvn -B -q -DskipTests package -pl qos2-probe)", reactor));
        assertEquals(null, problem("mvn -B -q -DskipTests package -pl qos2-probe -am", reactor));
        assertEquals(null, problem("mvn -B -q -DskipTests package -pl test-support", reactor),
                "test-support needs only released artifacts");
        assertTrue(problem("$(MVN) verify -pl \"$modules\"", reactor).contains("cannot be read here"));
    }

    /** Null when the command is fine, else what is wrong with it. */
    static String problem(String command, Map<String, Set<String>> reactor) {
        Matcher projects = PROJECTS.matcher(command);
        if (!projects.find()) {
            return null;
        }
        if (ALSO_MAKE.matcher(command).find()) {
            return null;
        }
        // The value as the shell passes it: quotes off, and not the ")" or ";" that ends a subshell or a command.
        String value = projects.group(1).replaceAll("[)\"';]+$", "").replaceAll("^[\"']", "");
        if (value.contains("$")) {
            return "-pl " + value + " without -am: the modules it names cannot be read here, so it must also make them";
        }
        Set<String> needed = new TreeSet<>();
        for (String module : value.split(",")) {
            String name = module.strip().replaceFirst("^:", "");
            Set<String> dependencies = reactor.get(name);
            if (dependencies == null) {
                return "-pl names " + name + ", which is not a module of the root pom";
            }
            needed.addAll(dependencies);
        }
        needed.removeAll(Set.of(value.split(",")));
        return needed.isEmpty() ? null
                : "-pl " + value + " without -am, but " + value + " needs the reactor's " + String.join(", ", needed);
    }

    /** Each root pom module's dependencies (every scope) on other modules of this build, by module directory. */
    static Map<String, Set<String>> reactorDependencies() {
        Map<String, String> directoryOfArtifact = new LinkedHashMap<>();
        Map<String, Element> poms = new LinkedHashMap<>();
        for (String module : Repo.pomModules()) {
            Element project = pom(Repo.ROOT.resolve(module).resolve("pom.xml"));
            poms.put(module, project);
            directoryOfArtifact.put(child(project, "artifactId"), module);
        }
        Map<String, Set<String>> dependencies = new LinkedHashMap<>();
        poms.forEach((module, project) -> {
            Set<String> siblings = new TreeSet<>();
            Element block = childElement(project, "dependencies");
            if (block != null) {
                NodeList list = block.getElementsByTagName("dependency");
                for (int i = 0; i < list.getLength(); i++) {
                    Element dependency = (Element) list.item(i);
                    String group = child(dependency, "groupId");
                    String artifact = child(dependency, "artifactId");
                    if ((GROUP.equals(group) || "${project.groupId}".equals(group))
                            && directoryOfArtifact.containsKey(artifact)) {
                        siblings.add(directoryOfArtifact.get(artifact));
                    }
                }
            }
            dependencies.put(module, siblings);
        });
        return dependencies;
    }

    /** The Maven commands with -pl, backslash-continued lines joined, from every place that runs builds. */
    static List<Command> partialBuilds() {
        List<Command> commands = new ArrayList<>();
        List<Path> files = new ArrayList<>();
        files.add(Repo.ROOT.resolve("Makefile"));
        for (String dir : List.of("scripts", "k8s")) {
            try (Stream<Path> walk = Files.walk(Repo.ROOT.resolve(dir))) {
                walk.filter(p -> p.toString().endsWith(".sh")).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (Path file : files) {
            addCommands(Repo.relative(file), Repo.read(Repo.relative(file)), commands);
        }
        for (Path workflow : Repo.workflowFiles()) {
            int step = 0;
            for (String run : Repo.runScripts(Repo.yaml(workflow))) {
                addCommands(Repo.relative(workflow) + " run #" + (++step), run, commands);
            }
        }
        return commands;
    }

    private static void addCommands(String where, String text, List<Command> commands) {
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int first = i;
            StringBuilder joined = new StringBuilder(lines[i]);
            while (joined.toString().endsWith("\\") && i + 1 < lines.length) {
                joined.setLength(joined.length() - 1);
                joined.append(' ').append(lines[++i].strip());
            }
            String line = joined.toString().strip();
            if (line.startsWith("#") || !MAVEN.matcher(line).find() || !PROJECTS.matcher(line).find()) {
                continue;
            }
            commands.add(new Command(where + ":" + (first + 1), line));
        }
    }

    private static Element pom(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document document = factory.newDocumentBuilder().parse(file.toFile());
            return document.getDocumentElement();
        } catch (Exception e) {
            throw new IllegalStateException("cannot parse " + Repo.relative(file), e);
        }
    }

    private static Element childElement(Element parent, String name) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                return element;
            }
        }
        return null;
    }

    private static String child(Element parent, String name) {
        Element element = childElement(parent, name);
        return element == null ? null : element.getTextContent().strip();
    }
}
