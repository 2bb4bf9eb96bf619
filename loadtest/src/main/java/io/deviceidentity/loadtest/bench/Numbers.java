package io.deviceidentity.loadtest.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers written the way C's printf writes them (the bench's tables and file names were printed by awk before, and
 * the figures in docs were read from them): the exact binary value rounded half-to-even, where Java's Formatter
 * rounds the decimal string half-up (0.25 as %.1f: printf 0.2, String.format 0.3).
 */
public final class Numbers {

    private Numbers() {
    }

    /** printf("%.{decimals}f", value). */
    public static String fixed(double value, int decimals) {
        if (!Double.isFinite(value)) {
            return Double.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
        }
        return new BigDecimal(value).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
    }

    /** printf("%d", value): the value truncated toward zero. */
    public static String integer(double value) {
        return Long.toString((long) value);
    }

    /**
     * awk's {@code print} of a number (OFMT {@code %.6g}): an integral value as an integer, any other with six
     * significant digits and no trailing zeros.
     */
    public static String awk(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e16) {
            return Long.toString((long) value);
        }
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(6, RoundingMode.HALF_EVEN)).stripTrailingZeros();
        int exponent = rounded.precision() - rounded.scale() - 1;
        return exponent < -4 || exponent >= 6 ? String.format("%.5e", value) : rounded.toPlainString();
    }

    /**
     * A value for a shell to read: at most six decimals (a difference of two sums carries binary noise beyond them),
     * integral ones without a decimal point (so that $(( )) takes them).
     */
    public static String plain(double value) {
        BigDecimal rounded = new BigDecimal(value).setScale(6, RoundingMode.HALF_EVEN).stripTrailingZeros();
        return rounded.scale() <= 0 ? rounded.toBigInteger().toString() : rounded.toPlainString();
    }

    /** awk's conversion of a string to a number: its longest numeric prefix, 0 without one ("72s" is 72). */
    public static double awkNumber(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^\\s*[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")
                .matcher(text);
        return m.find() ? Double.parseDouble(m.group().strip()) : 0;
    }
}
