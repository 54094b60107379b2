package org.shmpi.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test method as an MPI job at each of the given rank counts: every rank executes the
 * method body (with its {@code @BeforeEach} and {@code @AfterEach} methods) in its own JVM,
 * with {@code MPI.COMM_WORLD} of that size already initialised. JUnit shows one test per method
 * and rank count, named {@code method() [np=N]}.
 *
 * <p>On a class, the annotation gives the defaults ({@link #np}, {@link #timeout}) of the
 * class's {@code @MpiTest} methods that do not give their own.
 *
 * <p>The test methods of one class share one job per rank count; a test that breaks its job
 * (a rank exits, a hang) fails alone and the next test starts a fresh job. See
 * {@code docs/TESTING.md}.
 */
@Target({ElementType.METHOD, ElementType.TYPE, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@TestTemplate
@ExtendWith(MpiExtension.class)
public @interface MpiTest
{
    /** The rank counts to run at; empty: the class's annotation, else {@code {2}}. */
    int[] np() default {};

    /**
     * Seconds a run may take before it fails as hung, with every rank's state in the failure;
     * 0: the class's annotation, else the setting {@code shmpi.test.timeout} (default 60).
     */
    int timeout() default 0;
}
