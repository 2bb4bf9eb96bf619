package io.deviceidentity.loadtest.fastpath;

/** One of the goals beside what was measured: {@code pass} is null when it could not be judged. */
public record Goal(String name, String target, String measured, Boolean pass) {

    public String verdict() {
        return pass == null ? "n/a" : pass ? "PASS" : "FAIL";
    }
}
