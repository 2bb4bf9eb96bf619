package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `k8s/kind.sh up` run for real by bash, with stand-ins for the cluster tools (kind, minikube, kubectl, helm, docker,
 * mvn) that record their calls: nothing reaches a cluster or builds an image. What is proven: the kind values keep
 * TLS on, so cert-manager (the pinned CERT_MANAGER_VERSION, overridable) is applied and Available, and its webhook
 * admits, before `helm upgrade --install`, on kind and minikube alike; a cluster that has cert-manager's CRDs is left
 * as it is; after the install the release's Certificates are waited for before `helm test`.
 */
class KindShTest {

    private static final String RELEASE_MANIFEST =
            "https://github.com/cert-manager/cert-manager/releases/download/%s/cert-manager.yaml";

    @Test
    void upInstallsPinnedCertManagerBeforeTheChartWhenItsCrdsAreMissing(@TempDir Path dir) throws Exception {
        List<String> calls = up(dir, Map.of("FAKE_CRDS", "missing"));
        String version = pinnedVersion();
        assertTrue(version.matches("v1\\.\\d+\\.\\d+"), version);
        int apply = index(calls, "kubectl apply -f " + RELEASE_MANIFEST.formatted(version));
        int available = index(calls, "kubectl -n cert-manager wait --for=condition=Available --timeout=180s "
                + "deployment/cert-manager deployment/cert-manager-webhook deployment/cert-manager-cainjector");
        int admits = index(calls, "kubectl apply --dry-run=server -f -");
        int install = index(calls, "helm upgrade --install device-identity ");
        int certificates = index(calls, "kubectl -n identity wait --for=condition=Ready --timeout=120s "
                + "certificates.cert-manager.io -l app.kubernetes.io/instance=device-identity");
        int test = index(calls, "helm test device-identity ");
        assertTrue(apply < available && available < admits && admits < install && install < certificates
                && certificates < test, String.join("\n", calls));
        assertTrue(calls.get(install).contains("--values " + Repo.ROOT.resolve("helm/device-identity/ci/kind-values.yaml")),
                calls.get(install));
    }

    @Test
    void upKeepsACertManagerTheClusterAlreadyHas(@TempDir Path dir) throws Exception {
        List<String> calls = up(dir, Map.of("FAKE_CRDS", "present"));
        assertFalse(calls.stream().anyMatch(c -> c.contains("cert-manager/releases/download")), String.join("\n", calls));
        assertTrue(index(calls, "kubectl apply --dry-run=server -f -") < index(calls, "helm upgrade --install "));
    }

    /**
     * DB_MODE=cnpg: the pinned CloudNativePG release (the one whose CRDs the chart's tests validate against) is applied
     * server-side when its CRDs are missing, Available and admitting a Cluster before the chart, whose install gets the
     * CloudNativePG values on top of the kind values.
     */
    @Test
    void upInCnpgModeInstallsThePinnedOperatorBeforeTheChartWhenItsCrdsAreMissing(@TempDir Path dir) throws Exception {
        List<String> calls = up(dir, Map.of("FAKE_CRDS", "present", "DB_MODE", "cnpg"));
        String version = Repo.read("k8s/kind.sh").replaceAll("(?s).*\"\\$\\{CNPG_VERSION:=([0-9.]+)}\".*", "$1");
        assertTrue(Repo.read("helm/src/test/resources/cnpg/postgresql.cnpg.io_clusters.yaml")
                .contains("# CloudNativePG v" + version + " "), "the CRD the chart is validated against is of release " + version);
        String minor = version.substring(0, version.lastIndexOf('.'));
        int apply = index(calls, "kubectl apply --server-side -f https://raw.githubusercontent.com/cloudnative-pg/"
                + "cloudnative-pg/release-" + minor + "/releases/cnpg-" + version + ".yaml");
        int available = index(calls, "kubectl -n cnpg-system wait --for=condition=Available --timeout=180s "
                + "deployment/cnpg-controller-manager");
        int install = index(calls, "helm upgrade --install device-identity ");
        assertTrue(apply < available && available < install, String.join("\n", calls));
        assertTrue(calls.get(install).contains("--values " + Repo.ROOT.resolve("helm/device-identity/ci/kind-values.yaml")
                + " --values " + Repo.ROOT.resolve("helm/device-identity/ci/kind-cnpg-values.yaml")), calls.get(install));

        List<String> bundled = up(dir.resolve("bundled"), Map.of("FAKE_CRDS", "present"));
        assertFalse(bundled.stream().anyMatch(c -> c.contains("cloudnative-pg")), String.join("\n", bundled));
        List<String> present = up(dir.resolve("present"), Map.of("FAKE_CRDS", "present", "FAKE_CNPG_CRDS", "present", "DB_MODE", "cnpg"));
        assertFalse(present.stream().anyMatch(c -> c.contains("releases/cnpg-")), String.join("\n", present));
    }

    @Test
    void upOnMinikubeInstallsTheVersionItIsGiven(@TempDir Path dir) throws Exception {
        List<String> calls = up(dir, Map.of("FAKE_CRDS", "missing", "CLUSTER_TOOL", "minikube",
                "CERT_MANAGER_VERSION", "v1.16.3"));
        assertTrue(index(calls, "minikube -p device-identity image load ") < index(calls, "helm upgrade --install "));
        assertTrue(index(calls, "kubectl apply -f " + RELEASE_MANIFEST.formatted("v1.16.3"))
                < index(calls, "helm upgrade --install "), String.join("\n", calls));
        assertFalse(calls.stream().anyMatch(c -> c.startsWith("kind ")), String.join("\n", calls));
    }

    /** The default the script's header documents and its `: "${CERT_MANAGER_VERSION:=...}"` sets. */
    private static String pinnedVersion() {
        String script = Repo.read("k8s/kind.sh");
        java.util.regex.Matcher pinned = java.util.regex.Pattern.compile("\"\\$\\{CERT_MANAGER_VERSION:=(v[^}]+)}\"")
                .matcher(script);
        assertTrue(pinned.find(), "k8s/kind.sh sets no CERT_MANAGER_VERSION default");
        assertTrue(script.contains("# CERT_MANAGER_VERSION (" + pinned.group(1) + ")"), "the header documents another version");
        return pinned.group(1);
    }

    private static int index(List<String> calls, String prefix) {
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no call `" + prefix + "...` in:\n" + String.join("\n", calls));
    }

    /** Runs `k8s/kind.sh up` with the stand-ins; returns their calls in order, one line each. */
    private static List<String> up(Path dir, Map<String, String> extraEnv) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path log = dir.resolve("calls");
        String record = "printf '%s\\n' \"$(basename \"$0\") $*\" >>\"$CALLS\"\n";
        for (String tool : List.of("kind", "minikube", "docker", "mvn")) {
            script(bin.resolve(tool), record + (tool.equals("kind") ? "[ \"$1\" = get ] && echo device-identity\n" : "")
                    + "exit 0\n");
        }
        script(bin.resolve("helm"), record + "exit 0\n");
        script(bin.resolve("kubectl"), record + """
                case "$*" in
                  "get crd certificates.cert-manager.io") [ "$FAKE_CRDS" = present ] ;;
                  "get crd clusters.postgresql.cnpg.io") [ "${FAKE_CNPG_CRDS:-missing}" = present ] ;;
                  *"get certificates.cert-manager.io"*"-o name") echo certificate.cert-manager.io/device-identity-emqx ;;
                  *"--dry-run=server"*) cat >/dev/null ;;
                esac
                """);
        ProcessBuilder builder = new ProcessBuilder("bash", Repo.ROOT.resolve("k8s/kind.sh").toString(), "up")
                .directory(dir.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        env.put("CALLS", log.toString());
        env.put("SKIP_BUILD", "1");
        for (String name : List.of("CLUSTER_TOOL", "CLUSTER", "NAMESPACE", "RELEASE", "VALUES", "CERT_MANAGER_VERSION",
                "DB_MODE", "CNPG_VERSION")) {
            env.remove(name);
        }
        env.putAll(extraEnv);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, process.exitValue(), "k8s/kind.sh up with stand-ins failed:\n" + output);
        return Files.readAllLines(log);
    }

    private static void script(Path file, String body) throws IOException {
        Files.writeString(file, "#!/usr/bin/env bash\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
