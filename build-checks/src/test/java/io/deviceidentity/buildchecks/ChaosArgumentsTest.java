package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every call scripts/chaos.sh makes to its Python programs (scripts/chaos/*.py) is parsed by that program's own
 * argument parser (CHAOS_ARGS_ONLY=1: parse, print, exit), so that a renamed or misspelt flag fails `make test`
 * instead of a ten-minute `make chaos` run. Shell values ($VAR, "$(...)") become a placeholder number, which every
 * option of these programs accepts; an array expansion "${name[@]}" is tried empty and with each flag it can hold.
 */
class ChaosArgumentsTest {

    private static final Pattern CALL = Pattern.compile("python3 \"\\$ROOT/scripts/chaos/([a-z]+\\.py)\"((?:\\\\\\n|[^\\n])*)");
    private static final Pattern ARRAY_FLAGS = Pattern.compile("(\\w+)=\\((--[a-z-]+)\\)");

    record Call(String script, List<String> args) {
        @Override
        public String toString() {
            return script + " " + String.join(" ", args);
        }
    }

    static List<Call> calls() {
        String text = Repo.read("scripts/chaos.sh");
        List<Call> calls = new ArrayList<>();
        Matcher call = CALL.matcher(text);
        while (call.find()) {
            String line = call.group(2).replace("\\\n", " ");
            for (List<String> args : expansions(words(line), text)) {
                calls.add(new Call(call.group(1), args));
            }
        }
        return calls;
    }

    @Test
    void chaosCallsEveryProgramAndEverySubcommand() {
        Set<String> called = new TreeSet<>();
        for (Call call : calls()) {
            called.add(call.script() + (call.script().equals("abuse.py") ? " " + call.args().get(0) : ""));
        }
        assertEquals(Set.of("abuse.py register-known", "abuse.py login-known", "abuse.py hold-connections",
                "abuse.py hostile", "abuse.py login-storm", "abuse.py put-burst", "adversary.py", "analyse.py",
                "failover.py", "nat.py", "probe.py"),
                called);
    }

    @TestFactory
    Stream<DynamicTest> everyCallIsAcceptedByTheProgramItCalls() {
        return calls().stream().map(call -> dynamicTest(call.toString(), () -> {
            Result result = parse(call);
            assertEquals(0, result.exit(), call + " was refused:\n" + result.output());
            assertTrue(result.output().startsWith("{"), result.output());
        }));
    }

    @Test
    void aMisspeltFlagIsRefused() throws Exception {
        Result result = parse(new Call("analyse.py", List.of("--events", "x", "--recovery-gaol", "5")));
        assertEquals(2, result.exit(), result.output());
    }

    record Result(int exit, String output) {
    }

    static Result parse(Call call) throws Exception {
        List<String> command = new ArrayList<>(List.of("python3", Repo.ROOT.resolve("scripts/chaos").resolve(call.script()).toString()));
        command.addAll(call.args());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("CHAOS_ARGS_ONLY", "1");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), call + " did not finish");
        return new Result(process.exitValue(), output);
    }

    /**
     * The words of one shell command line, up to its first redirection, pipe, list operator or background mark;
     * quoted strings are one word and a word holding a shell value becomes "1".
     */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        boolean dynamic = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '"') {
                int end = line.indexOf('"', i + 1);
                String quoted = line.substring(i + 1, end);
                dynamic |= quoted.contains("$");
                word.append(quoted);
                inWord = true;
                i = end + 1;
                continue;
            }
            if (c == '$') {
                dynamic = true;
            }
            if (Character.isWhitespace(c) || c == '>' || c == '&' || c == '|' || c == ';'
                    || (c == '2' && !inWord && i + 1 < line.length() && line.charAt(i + 1) == '>')) {
                if (inWord) {
                    words.add(dynamic && !word.toString().startsWith("${") ? "1" : word.toString());
                    word.setLength(0);
                    inWord = false;
                    dynamic = false;
                }
                if (!Character.isWhitespace(c)) {
                    break;
                }
                i++;
                continue;
            }
            word.append(c);
            inWord = true;
            i++;
        }
        if (inWord) {
            words.add(dynamic && !word.toString().startsWith("${") ? "1" : word.toString());
        }
        return words;
    }

    /** Each way an array expansion "${name[@]}" in {@code args} can come out: empty, or the flag the script puts in it. */
    static List<List<String>> expansions(List<String> args, String script) {
        List<List<String>> variants = new ArrayList<>(List.of(new ArrayList<>()));
        for (String arg : args) {
            Matcher array = Pattern.compile("\\$\\{(\\w+)\\[@]}").matcher(arg);
            if (!array.matches()) {
                variants.forEach(v -> v.add(arg));
                continue;
            }
            List<String> flags = new ArrayList<>();
            Matcher assignment = ARRAY_FLAGS.matcher(script);
            while (assignment.find()) {
                if (assignment.group(1).equals(array.group(1))) {
                    flags.add(assignment.group(2));
                }
            }
            assertTrue(!flags.isEmpty(), "chaos.sh never fills " + arg);
            List<List<String>> next = new ArrayList<>();
            for (List<String> variant : variants) {
                next.add(new ArrayList<>(variant));
                for (String flag : flags) {
                    List<String> with = new ArrayList<>(variant);
                    with.add(flag);
                    next.add(with);
                }
            }
            variants = next;
        }
        return variants;
    }
}
