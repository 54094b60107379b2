package org.shmpi.junit.samples;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.shmpi.junit.MpiTest;

/** A failing test, run with {@code shmpi.test.keep=true}: its failure names the kept job directory. */
@EnabledIfSystemProperty(named = "shmpi.samples", matches = "true")
public class KeepSample
{
    @MpiTest(np = 1)
    void fails()
    {
        fail("keep me");
    }
}
