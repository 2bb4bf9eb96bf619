package io.deviceidentity.http;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;

import io.quarkus.arc.Arc;

/**
 * What the service's endpoints answer, for the framework's own refusals to say it: the methods a path answers (the
 * {@code Allow} header of a 405), the content types a method reads (the message of a 415) and those it answers with
 * (the message of a 406). Quarkus REST's router
 * throws its 405 without {@code Allow} (resteasy-reactive {@code ClassRoutingHandler}:
 * {@code new NotAllowedException(status(METHOD_NOT_ALLOWED))}, while its automatic {@code OPTIONS} answer lists the
 * methods) and its 415 without saying what would do, so this reads the source the router is built from: the
 * {@code @Path} resource classes, their methods' HTTP-method annotations, {@code @Consumes} and {@code @Produces}, plus {@code OPTIONS}
 * and, where {@code GET} is, {@code HEAD}, as the router adds them. Built once, on the first refusal that needs it.
 */
final class ResourceRoutes {

    private record Route(Pattern path, String method, List<String> consumes, List<String> produces) {
    }

    private static volatile List<Route> routes;

    private ResourceRoutes() {
    }

    /** {@code "GET, HEAD, OPTIONS"} for a path some resource answers; null when none does. */
    static String allowedMethods(String path) {
        Set<String> methods = new TreeSet<>();
        for (Route route : routes()) {
            if (route.path().matcher(path).matches()) {
                methods.add(route.method());
            }
        }
        if (methods.isEmpty()) {
            return null;
        }
        if (methods.contains("GET")) {
            methods.add("HEAD");
        }
        methods.add("OPTIONS");
        return String.join(", ", methods);
    }

    /** The content types {@code method} on {@code path} reads ({@code @Consumes}); empty when it names none. */
    static Set<String> consumedTypes(String method, String path) {
        Set<String> types = new TreeSet<>();
        for (Route route : routes()) {
            if (route.method().equals(method) && route.path().matcher(path).matches()) {
                types.addAll(route.consumes());
            }
        }
        return types;
    }

    /** The content types {@code method} on {@code path} answers with ({@code @Produces}); empty when it names none. */
    static Set<String> producedTypes(String method, String path) {
        Set<String> types = new TreeSet<>();
        for (Route route : routes()) {
            if (route.method().equals(method) && route.path().matcher(path).matches()) {
                types.addAll(route.produces());
            }
        }
        return types;
    }

    private static List<Route> routes() {
        List<Route> known = routes;
        if (known == null) {
            known = new ArrayList<>();
            for (Bean<?> bean : Arc.container().beanManager().getBeans(Object.class, Any.Literal.INSTANCE)) {
                Class<?> type = bean.getBeanClass();
                Path classPath = type.getAnnotation(Path.class);
                if (classPath != null) {
                    addMethods(type, classPath.value(), known);
                }
            }
            routes = known;
        }
        return known;
    }

    private static void addMethods(Class<?> type, String classPath, List<Route> into) {
        for (Method method : type.getMethods()) {
            for (Annotation annotation : method.getAnnotations()) {
                HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
                if (http != null) {
                    Path methodPath = method.getAnnotation(Path.class);
                    Consumes consumes = method.getAnnotation(Consumes.class) != null
                            ? method.getAnnotation(Consumes.class) : type.getAnnotation(Consumes.class);
                    Produces produces = method.getAnnotation(Produces.class) != null
                            ? method.getAnnotation(Produces.class) : type.getAnnotation(Produces.class);
                    into.add(new Route(template(classPath + (methodPath == null ? "" : "/" + methodPath.value())),
                            http.value(), consumes == null ? List.of() : List.of(consumes.value()),
                            produces == null ? List.of() : List.of(produces.value())));
                }
            }
        }
    }

    /** A JAX-RS path template as a pattern: {@code {name}} is one segment, repeated slashes are one. */
    static Pattern template(String path) {
        String normalized = ("/" + path).replaceAll("/+", "/").replaceAll("(.)/$", "$1");
        StringBuilder pattern = new StringBuilder();
        for (String part : normalized.split("(?=\\{)|(?<=\\})")) {
            pattern.append(part.startsWith("{") ? "[^/]+" : Pattern.quote(part));
        }
        return Pattern.compile(pattern + "/?");
    }
}
