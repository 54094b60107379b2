package org.shmpi.shm.segment;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The other process of {@code SegmentManagerTest.segmentsWorkAcrossProcesses}: rank 1 of a job
 * whose rank 0 is the test JVM. Opens rank 0's window segment, answers in it, creates its own,
 * says {@code ready <pid>}, waits for a line on stdin, closes its manager and says {@code closed}.
 */
public final class SegmentPeerMain
{
    private SegmentPeerMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path directory = Path.of(args[0]);
        final long parentPid = Long.parseLong(args[1]);
        final long self = ProcessHandle.current().pid();
        try (SegmentManager manager = new SegmentManager(directory, 1))
        {
            final Segment parent = manager.open(SegmentKind.WINDOW, SegmentNames.window(0, 0), 0,
                System.nanoTime() + TimeUnit.SECONDS.toNanos(20));
            if (parent.creatorPid() != parentPid || !parent.isCreatorAlive())
            {
                throw new IllegalStateException("unexpected creator: " + parent + ", creatorPid=" +
                    parent.creatorPid() + ", parentPid=" + parentPid);
            }
            final int question = parent.buffer().getIntAcquire(0);
            parent.buffer().putIntRelease(4, question + 1);
            manager.create(SegmentKind.WINDOW, SegmentNames.window(0, 1), 4096, 0, b -> b.putLong(0, self));
            System.out.println("ready " + self);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
        System.out.println("closed");
        System.out.flush();
    }
}
