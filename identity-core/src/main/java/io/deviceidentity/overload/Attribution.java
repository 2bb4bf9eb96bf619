package io.deviceidentity.overload;

/**
 * Whose fault a lane's refusals and failures are told to be. The bcrypt lane tells them as they are; the database
 * lane tells them as the database's while its steps fail ({@link DatabaseAttribution}).
 */
interface Attribution {

    /** Tells refusals as they are and passes failures through: the bcrypt lane's work cannot fail a backend. */
    Attribution AS_IS = new Attribution() {
        @Override
        public ServiceUnavailableException told(ServiceUnavailableException refusal) {
            return refusal;
        }

        @Override
        public Throwable failed(Throwable thrown, boolean forRequest) {
            return thrown;
        }

        @Override
        public void succeeded() {
        }
    };

    /** What the caller of a refused or skipped step is told instead of {@code refusal}. */
    ServiceUnavailableException told(ServiceUnavailableException refusal);

    /** What a step's failure is answered as; {@code forRequest} is false for a bulk step. */
    Throwable failed(Throwable thrown, boolean forRequest);

    /** A step ran and succeeded. */
    void succeeded();
}
