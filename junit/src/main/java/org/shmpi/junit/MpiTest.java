package org.shmpi.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.ClassTemplate;
import org.junit.jupiter.api.TestTemplate;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test method as an MPI job at each of the given rank counts: every rank executes the
 * method body (with its {@code @BeforeEach} and {@code @AfterEach} methods) in its own JVM,
 * with {@code MPI.COMM_WORLD} of that size already initialised. JUnit shows one test per method
 * and rank count, named {@code method() [np=N]}.
 *
 * <p>On a class, the whole class runs once per rank count ({@code MyTest} with {@code [np=2]},
 * {@code [np=4]} under it, and the methods under those): each of its {@code @Test} methods runs
 * on every rank of that count's job, with the class's {@link #timeout}. An {@code @MpiTest}
 * method in such a class runs once in each of the class's runs (its own {@code np} is not used;
 * its own {@code timeout} is).
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
@ClassTemplate
@ExtendWith(MpiExtension.class)
public @interface MpiTest
{
    /** The rank counts to run at; empty: {@code {2}}. */
    int[] np() default {};

    /**
     * Seconds a run may take before it fails as hung, with every rank's state in the failure;
     * 0: the class's annotation (for a method), else the setting {@code shmpi.test.timeout}
     * (default 60).
     */
    int timeout() default 0;

    /**
     * More {@code shmrun} options for this method's or class's jobs, one word per element, after
     * those of the setting {@code shmpi.test.shmrun.args}: e.g.
     * {@code {"--bind-to", "numa", "-Dshmpi.topology.file=src/test/resources/two-nodes.txt"}}
     * (a topology file given so is the launcher's too, and a relative path is resolved against
     * the test JVM's working directory). Methods of one class with different options get
     * different jobs. On a method inside a class annotated {@code @MpiTest}, the class's options
     * are used.
     */
    String[] shmrunArgs() default {};
}
