package io.deviceidentity.registration.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The native image can read a record's components only when its accessors are registered for reflection, and
 * {@link ApiDocumentation} reads those of every record the OpenAPI document reaches while the service starts: the
 * registration in {@link ApiSchemaTypes} must name exactly those records (a missing one stops the native service at
 * start-up, an extra one is a stale entry).
 */
class ApiSchemaTypesTest {

    @Test
    void everyRecordTheApiDocumentReachesIsRegisteredForReflectionAndNoOther() {
        Set<String> reached = new TreeSet<>();
        ApiAnswers.OPERATIONS.values().forEach(answers -> answers.forEach(answer -> {
            if (answer.body() != null) {
                collect(answer.body(), reached);
            }
        }));
        ApiDocumentation.REQUEST_BODIES.values().forEach(body -> collect(body.getValue(), reached));

        Set<String> registered = new TreeSet<>();
        Arrays.stream(ApiSchemaTypes.class.getAnnotation(RegisterForReflection.class).targets())
                .forEach(type -> registered.add(type.getName()));
        assertEquals(reached, registered);
    }

    /** The record and, as ApiDocumentation's fieldSchema walks them, the records of its fields, lists and maps. */
    private static void collect(Type type, Set<String> records) {
        if (type instanceof ParameterizedType generic) {
            Arrays.stream(generic.getActualTypeArguments()).forEach(argument -> collect(argument, records));
        } else if (type instanceof Class<?> raw && raw.isRecord() && records.add(raw.getName())) {
            for (RecordComponent component : raw.getRecordComponents()) {
                collect(component.getGenericType(), records);
            }
        }
    }
}
