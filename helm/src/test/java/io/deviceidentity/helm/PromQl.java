package io.deviceidentity.helm;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A syntax check of PromQL expressions: Maven Central has no maintained Java PromQL parser, so this is a small
 * recursive-descent reader of the grammar Prometheus documents (prometheus/prometheus promql/parser/generated_parser.y):
 * selectors with label matchers, range and subquery brackets, offsets, aggregations with by/without (before or after
 * their arguments), known function names, binary operators with bool, on/ignoring and group_left/group_right. It
 * proves an expression parses, not that it means what was intended; the thresholds and names are tested apart.
 */
final class PromQl {

    private static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar",
            "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");
    /** Aggregations whose first argument is a parameter (k, φ, the label name). */
    private static final Set<String> PARAMETRIC = Set.of("count_values", "bottomk", "topk", "quantile", "limitk",
            "limit_ratio");
    private static final Set<String> FUNCTIONS = Set.of("abs", "absent", "absent_over_time", "ceil", "changes",
            "clamp", "clamp_max", "clamp_min", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "delta",
            "deriv", "exp", "floor", "histogram_quantile", "histogram_count", "histogram_sum", "histogram_fraction",
            "holt_winters", "hour", "idelta", "increase", "irate", "label_join", "label_replace", "ln", "log2",
            "log10", "minute", "month", "predict_linear", "rate", "resets", "round", "scalar", "sgn", "sort",
            "sort_desc", "sqrt", "time", "timestamp", "vector", "year", "avg_over_time", "min_over_time",
            "max_over_time", "sum_over_time", "count_over_time", "quantile_over_time", "stddev_over_time",
            "stdvar_over_time", "last_over_time", "present_over_time");
    private static final Set<String> BINARY = Set.of("+", "-", "*", "/", "%", "^", "==", "!=", ">", "<", ">=", "<=",
            "and", "or", "unless", "atan2");
    private static final Set<String> MATCH_OPS = Set.of("=", "!=", "=~", "!~");
    private static final Pattern TOKEN = Pattern.compile("\\s*(?:(?<str>\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*')"
            + "|(?<dur>[0-9]+(?:ms|s|m|h|d|w|y)(?:[0-9]+(?:ms|s|m|h|d|w|y))*)(?![A-Za-z0-9_])"
            + "|(?<num>[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)"
            + "|(?<id>[A-Za-z_:][A-Za-z0-9_:]*)"
            + "|(?<op>==|!=|>=|<=|=~|!~|[-+*/%^<>=(){}\\[\\],:@]))");

    private final List<String> tokens = new ArrayList<>();
    private int at;

    private PromQl(String expr) {
        Matcher m = TOKEN.matcher(expr);
        int end = 0;
        while (end < expr.length() && m.find(end) && m.start() == end) {
            tokens.add(m.group().trim());
            end = m.end();
        }
        if (!expr.substring(end).isBlank()) {
            throw new IllegalArgumentException("cannot read from: " + expr.substring(end));
        }
    }

    /** Throws {@link IllegalArgumentException} naming the first place the expression does not parse. */
    static void check(String expr) {
        PromQl parser = new PromQl(expr);
        parser.expression();
        if (parser.at != parser.tokens.size()) {
            parser.fail("end of expression");
        }
    }

    private void expression() {
        unary();
        while (peek() != null && BINARY.contains(peek())) {
            next();
            if ("bool".equals(peek())) {
                next();
            }
            if ("on".equals(peek()) || "ignoring".equals(peek())) {
                next();
                labelList();
            }
            if ("group_left".equals(peek()) || "group_right".equals(peek())) {
                next();
                if ("(".equals(peek())) {
                    labelList();
                }
            }
            unary();
        }
    }

    private void unary() {
        if ("-".equals(peek()) || "+".equals(peek())) {
            next();
        }
        primary();
        postfix();
    }

    private void primary() {
        String t = next();
        if (t == null) {
            fail("an operand");
        } else if (t.equals("(")) {
            expression();
            expect(")");
        } else if (t.startsWith("\"") || t.startsWith("'") || Character.isDigit(t.charAt(0))) {
            return;
        } else if (t.equals("{")) {
            matchers();
        } else if (AGGREGATIONS.contains(t)) {
            grouping();
            expect("(");
            if (PARAMETRIC.contains(t)) {
                expression();
                expect(",");
            }
            expression();
            expect(")");
            grouping();
        } else if (FUNCTIONS.contains(t) && "(".equals(peek())) {
            next();
            if (!")".equals(peek())) {
                expression();
                while (",".equals(peek())) {
                    next();
                    expression();
                }
            }
            expect(")");
        } else if (Character.isLetter(t.charAt(0)) || t.charAt(0) == '_' || t.charAt(0) == ':') {
            if ("(".equals(peek())) {
                fail("a known function instead of " + t);
            }
            if ("{".equals(peek())) {
                next();
                matchers();
            }
        } else {
            at--;
            fail("an operand");
        }
    }

    /** [range], [range:step] subqueries, offset and @. */
    private void postfix() {
        while (true) {
            if ("[".equals(peek())) {
                next();
                duration();
                if (":".equals(peek())) {
                    next();
                    if (!"]".equals(peek())) {
                        duration();
                    }
                }
                expect("]");
            } else if ("offset".equals(peek())) {
                next();
                if ("-".equals(peek())) {
                    next();
                }
                duration();
            } else {
                return;
            }
        }
    }

    private void grouping() {
        if ("by".equals(peek()) || "without".equals(peek())) {
            next();
            labelList();
        }
    }

    private void labelList() {
        expect("(");
        while (!")".equals(peek())) {
            label();
            if (",".equals(peek())) {
                next();
            } else {
                break;
            }
        }
        expect(")");
    }

    private void matchers() {
        while (!"}".equals(peek())) {
            label();
            String op = next();
            if (op == null || !MATCH_OPS.contains(op)) {
                at--;
                fail("a label matcher operator");
            }
            String value = next();
            if (value == null || !(value.startsWith("\"") || value.startsWith("'"))) {
                at--;
                fail("a quoted label value");
            }
            if (",".equals(peek())) {
                next();
            } else {
                break;
            }
        }
        expect("}");
    }

    private void label() {
        String t = next();
        if (t == null || !t.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            at--;
            fail("a label name");
        }
    }

    private void duration() {
        String t = next();
        if (t == null || !t.matches("([0-9]+(ms|s|m|h|d|w|y))+")) {
            at--;
            fail("a duration");
        }
    }

    private void expect(String token) {
        if (!token.equals(next())) {
            at--;
            fail("'" + token + "'");
        }
    }

    private String peek() {
        return at < tokens.size() ? tokens.get(at) : null;
    }

    private String next() {
        return at < tokens.size() ? tokens.get(at++) : null;
    }

    private void fail(String wanted) {
        throw new IllegalArgumentException("expected " + wanted + " at token " + at + " (" + peek() + ") of "
                + String.join(" ", tokens));
    }
}
