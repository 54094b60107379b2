package org.shmpi.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ProcessesTest
{
    private static final long SELF = ProcessHandle.current().pid();

    @Test
    void selfIsAliveAtItsOwnStartTime()
    {
        final long start = Processes.selfStartMillis();
        assertEquals(start, Processes.startMillis(SELF));
        assertTrue(start > 0 && start <= System.currentTimeMillis());
        assertTrue(Processes.isAlive(SELF, start));
        assertFalse(Processes.isZombie(SELF));
    }

    @Test
    void anotherStartTimeMeansAnotherProcess()
    {
        final long start = Processes.selfStartMillis();
        assertFalse(Processes.isAlive(SELF, start - 1_000));
        assertFalse(Processes.isAlive(SELF, start + 1_000));
    }

    @Test
    @Timeout(20)
    void reapedProcessIsGone() throws Exception
    {
        final Process p = new ProcessBuilder("true").start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertEquals(-1, Processes.startMillis(p.pid()));
        assertFalse(Processes.isAlive(p.pid(), Processes.selfStartMillis()));
        assertTrue(Processes.isZombie(p.pid()), "a missing /proc entry counts as gone");
    }

    @Test
    void parentIsKnown()
    {
        final long parent = Processes.parentPid();
        assertTrue(parent > 0);
        assertEquals(ProcessHandle.current().parent().orElseThrow().pid(), parent);
    }
}
