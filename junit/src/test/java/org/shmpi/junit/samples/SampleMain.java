package org.shmpi.junit.samples;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * Runs one test class through the JUnit Platform in a JVM of its own, started with plain
 * {@code java -cp} (no shmpi JVM flags), as a user's build starts its test JVM; prints the counts.
 */
public final class SampleMain
{
    private SampleMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        System.setProperty("shmpi.samples", "true");
        final var stats = EngineTestKit.engine("junit-jupiter").selectors(selectClass(Class.forName(args[0]))).execute()
            .testEvents();
        System.out.println("SAMPLE " + args[0] + " started=" + stats.started().count() + " succeeded=" +
            stats.succeeded().count() + " failed=" + stats.failed().count() + " skipped=" + stats.skipped().count());
        stats.failed().stream().forEach(e -> System.out.println("FAILED " + e));
        System.exit(stats.failed().count() == 0 ? 0 : 1);
    }
}
