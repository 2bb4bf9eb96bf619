package io.deviceidentity.helm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;

/**
 * Where the chart's rendering of a service disagrees with the manifest quarkus-kubernetes generated from the service's
 * configuration, and with the environment the service reads. Each disagreement is one readable line, so that a test
 * can show all of them at once and a deliberately broken input can be checked for the one it must produce.
 */
final class ManifestAgreement {

    /** The default registry quarkus-kubernetes writes in front of the image (the chart leaves it implicit). */
    private static final String DEFAULT_REGISTRY = "docker.io/";

    private ManifestAgreement() {
    }

    /** Names, ports, probes, metrics path and environment; empty when the chart follows the service. */
    static List<String> disagreements(GeneratedManifest generated, Chart.Rendered chart, ServiceEnvironment env) {
        List<String> problems = new ArrayList<>();
        String service = generated.service();
        Deployment deployment = generated.deployment();
        String chartName = Chart.name(deployment.getMetadata().getName());
        Deployment chartDeployment = chart.find(Deployment.class, chartName).orElse(null);
        if (!deployment.getMetadata().getName().equals(service) || chartDeployment == null) {
            problems.add(service + ": the generated Deployment is named " + deployment.getMetadata().getName()
                    + "; the chart renders no Deployment " + chartName);
            return problems;
        }
        Container mine = generated.container();
        Container theirs = chartDeployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        same(problems, service, "container name", mine.getName(), theirs.getName());
        same(problems, service, "image repository", repository(mine.getImage()).replaceFirst("^" + DEFAULT_REGISTRY, ""),
                repository(theirs.getImage()));

        // quarkus-kubernetes names the main port http whatever it serves; the chart names it after its scheme (https
        // when TLS is on, the default).
        Integer port = containerPort(mine, "http");
        Integer chartPort = containerPort(theirs, "https") != null ? containerPort(theirs, "https") : containerPort(theirs, "http");
        same(problems, service, "container port http", port, chartPort);
        Service svc = generated.k8sService();
        Service chartSvc = chart.find(Service.class, chartName).orElse(null);
        if (chartSvc == null) {
            problems.add(service + ": the chart renders no Service " + chartName);
        } else {
            same(problems, service, "Service targetPort (as a container port)",
                    resolve(mine, svc.getSpec().getPorts().get(0).getTargetPort()),
                    resolve(theirs, chartSvc.getSpec().getPorts().get(0).getTargetPort()));
        }

        probe(problems, service, "startupProbe", mine, theirs, Container::getStartupProbe);
        probe(problems, service, "livenessProbe", mine, theirs, Container::getLivenessProbe);
        probe(problems, service, "readinessProbe", mine, theirs, Container::getReadinessProbe);
        same(problems, service, "ServiceMonitor path", metricsPath(generated.ofKind("ServiceMonitor"), service),
                metricsPath(chart.resources().stream().filter(r -> r.getKind().equals("ServiceMonitor")).toList(), chartName));

        environment(problems, service, mine, chart, theirs, env);
        problems.addAll(chartEnvironmentProblems(chart, service, env));
        return problems;
    }

    /**
     * What holds for every value set: the chart sets only names the service reads, and every name the service needs
     * without a default.
     */
    static List<String> chartEnvironmentProblems(Chart.Rendered chart, String service, ServiceEnvironment env) {
        List<String> problems = new ArrayList<>();
        Map<String, Source> set = chartEnvironment(chart, service);
        set.keySet().stream().filter(name -> !env.reads().contains(name)).forEach(name -> problems.add(service
                + ": the chart sets " + name + ", which the service does not read (not a placeholder or key of its"
                + " application.properties, nor a @ConfigMapping property)"));
        env.required().stream().filter(name -> !set.containsKey(name)).forEach(name -> problems.add(service
                + ": the service requires " + name + " (no default), which the chart does not set"));
        return problems;
    }

    /** Where an environment variable's value comes from: a Secret, or not (a ConfigMap or a literal). */
    enum Source { SECRET, PLAIN }

    record Value(Source source, String literal) {
    }

    private static void environment(List<String> problems, String service, Container mine, Chart.Rendered chart,
            Container theirs, ServiceEnvironment env) {
        Map<String, Value> chartEnv = chartValues(chart, theirs);
        for (EnvVar var : mine.getEnv()) {
            if (var.getValueFrom() != null && var.getValueFrom().getFieldRef() != null) {
                // The Downward API: dekorate adds KUBERNETES_NAMESPACE to every generated container
                // (io.dekorate.kubernetes.decorator.DeploymentResourceFactory); not the service's configuration.
                continue;
            }
            String name = var.getName();
            if (!env.reads().contains(name)) {
                problems.add(service + ": the generated manifest sets " + name + ", which the service does not read");
            }
            Value theirsValue = chartEnv.get(name);
            if (theirsValue == null) {
                problems.add(service + ": the service's manifest sets " + name + ", the chart does not");
                continue;
            }
            Source source = isSecret(var) ? Source.SECRET : Source.PLAIN;
            if (source != theirsValue.source()) {
                problems.add(service + ": " + name + " comes from " + (source == Source.SECRET ? "a Secret" : "a ConfigMap or literal")
                        + " in the service's manifest, but not in the chart");
            }
            if (var.getValue() != null && !var.getValue().equals(theirsValue.literal())) {
                problems.add(service + ": " + name + " is " + var.getValue() + " in the service's manifest (as built), "
                        + theirsValue.literal() + " in the chart");
            }
        }
    }

    /** Names the chart sets on the service's container, with their source. */
    static Map<String, Source> chartEnvironment(Chart.Rendered chart, String service) {
        Deployment deployment = chart.get(Deployment.class, Chart.name(service));
        Map<String, Source> names = new TreeMap<>();
        chartValues(chart, deployment.getSpec().getTemplate().getSpec().getContainers().get(0))
                .forEach((name, value) -> names.put(name, value.source()));
        return names;
    }

    private static Map<String, Value> chartValues(Chart.Rendered chart, Container container) {
        Map<String, Value> values = new TreeMap<>();
        for (EnvFromSource from : container.getEnvFrom() == null ? List.<EnvFromSource>of() : container.getEnvFrom()) {
            if (from.getConfigMapRef() != null) {
                chart.get(ConfigMap.class, from.getConfigMapRef().getName()).getData()
                        .forEach((k, v) -> values.put(k, new Value(Source.PLAIN, v)));
            } else {
                // A whole Secret as environment: its keys are not in the rendering, so nothing can be checked.
                values.put("<envFrom secret " + from.getSecretRef().getName() + ">", new Value(Source.SECRET, null));
            }
        }
        for (EnvVar var : container.getEnv()) {
            values.put(var.getName(), new Value(isSecret(var) ? Source.SECRET : Source.PLAIN, var.getValue()));
        }
        return values;
    }

    private static boolean isSecret(EnvVar var) {
        return var.getValueFrom() != null && var.getValueFrom().getSecretKeyRef() != null;
    }

    private static void probe(List<String> problems, String service, String which, Container mine, Container theirs,
            Function<Container, Probe> get) {
        Probe a = get.apply(mine);
        Probe b = get.apply(theirs);
        if (a == null || b == null) {
            if (a != b) {
                problems.add(service + ": " + which + " is " + (a == null ? "absent" : "present") + " in the service's manifest, "
                        + (b == null ? "absent" : "present") + " in the chart");
            }
            return;
        }
        if (a.getHttpGet() == null || b.getHttpGet() == null) {
            problems.add(service + ": " + which + " is not an HTTP GET in both");
            return;
        }
        same(problems, service, which + " path", a.getHttpGet().getPath(), b.getHttpGet().getPath());
        same(problems, service, which + " port (as a container port)", resolve(mine, a.getHttpGet().getPort()),
                resolve(theirs, b.getHttpGet().getPort()));
    }

    /** A port by number, or by the name of one of the container's ports. */
    private static Integer resolve(Container container, IntOrString port) {
        if (port == null) {
            return null;
        }
        return port.getIntVal() != null ? port.getIntVal() : containerPort(container, port.getStrVal());
    }

    private static Integer containerPort(Container container, String name) {
        return container.getPorts().stream().filter(p -> name.equals(p.getName())).map(ContainerPort::getContainerPort)
                .findFirst().orElse(null);
    }

    private static String metricsPath(List<HasMetadata> monitors, String name) {
        return monitors.stream().filter(m -> m.getMetadata().getName().equals(name))
                .map(m -> ((ServiceMonitor) m).getSpec().getEndpoints().get(0).getPath()).findFirst().orElse(null);
    }

    private static String repository(String image) {
        int tag = image.lastIndexOf(':');
        return tag > image.lastIndexOf('/') ? image.substring(0, tag) : image;
    }

    private static void same(List<String> problems, String service, String what, Object mine, Object theirs) {
        if (mine == null || !Objects.equals(mine, theirs)) {
            problems.add(service + ": " + what + " is " + mine + " in the service's manifest, " + theirs + " in the chart");
        }
    }
}
