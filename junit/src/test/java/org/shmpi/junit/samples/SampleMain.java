package org.shmpi.junit.samples;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import org.junit.platform.testkit.engine.EngineTestKit;

/** Runs one sample class through the JUnit Platform in a JVM of its own (a test JVM to kill). */
public final class SampleMain
{
    private SampleMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        System.setProperty("shmpi.samples", "true");
        EngineTestKit.engine("junit-jupiter").selectors(selectClass(Class.forName(args[0]))).execute();
    }
}
