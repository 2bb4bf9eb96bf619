package io.deviceidentity.registration.imports;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Splits a byte stream into lines ({@code \n}, an optional {@code \r} before it dropped) without ever holding more
 * than one line of at most {@code maxLineBytes}: a longer line is read to its end and dropped, and reported as too
 * long. Line numbers count from 1 and include blank lines, as an editor shows them.
 */
final class Lines {

    /** One line; {@code bytes} is null when it was too long. */
    record Line(int number, byte[] bytes) {
        boolean tooLong() {
            return bytes == null;
        }

        boolean blank() {
            if (bytes == null) {
                return false;
            }
            for (byte b : bytes) {
                if (b != ' ' && b != '\t') {
                    return false;
                }
            }
            return true;
        }
    }

    private final InputStream in;
    private final int maxLineBytes;
    private final byte[] buffer = new byte[64 * 1024];
    private final ByteArrayOutputStream current = new ByteArrayOutputStream(512);
    private int position;
    private int limit;
    private int number;
    private boolean ended;

    Lines(InputStream in, int maxLineBytes) {
        this.in = in;
        this.maxLineBytes = maxLineBytes;
    }

    /** The next line, or null at the end of the stream. */
    Line next() throws IOException {
        if (ended) {
            return null;
        }
        current.reset();
        boolean tooLong = false;
        boolean any = false;
        while (true) {
            if (position == limit) {
                limit = in.read(buffer);
                position = 0;
                if (limit <= 0) {
                    limit = 0;
                    ended = true;
                    if (!any) {
                        return null; // nothing after the last newline
                    }
                    return line(tooLong);
                }
            }
            any = true;
            int start = position;
            while (position < limit && buffer[position] != '\n') {
                position++;
            }
            if (!tooLong) {
                current.write(buffer, start, position - start);
                if (current.size() > maxLineBytes + 1) { // +1: a '\r' that is not part of the line
                    tooLong = true;
                    current.reset();
                }
            }
            if (position < limit) {
                position++; // the newline
                return line(tooLong);
            }
        }
    }

    private Line line(boolean tooLong) {
        number++;
        if (tooLong) {
            return new Line(number, null);
        }
        byte[] bytes = current.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        if (length > maxLineBytes) {
            return new Line(number, null);
        }
        return new Line(number, length == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, length));
    }
}
