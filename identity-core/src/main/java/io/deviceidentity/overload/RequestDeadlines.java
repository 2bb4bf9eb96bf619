package io.deviceidentity.overload;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Gives every request its deadline, counted from the moment Vert.x routes it (before its body is read), so time
 * spent anywhere in the service counts against it.
 */
@ApplicationScoped
public class RequestDeadlines {

    private static final String ARRIVAL = "io.deviceidentity.arrival-nanos";

    private final OverloadConfig config;

    public RequestDeadlines(OverloadConfig config) {
        this.config = config;
    }

    void stampArrival(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).handler(context -> {
            context.put(ARRIVAL, System.nanoTime());
            context.next();
        });
    }

    public Deadline of(RoutingContext context) {
        Long arrival = context == null ? null : context.get(ARRIVAL);
        return Deadline.after(arrival == null ? System.nanoTime() : arrival, config.deadline());
    }
}
