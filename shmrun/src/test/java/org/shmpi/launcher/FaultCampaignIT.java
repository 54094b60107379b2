package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sample of the fault campaign in every build: each fault (kill -9, SIGSTOP, SIGTERM, a throw and
 * a heap exhausted inside an MPI call) across the workloads, at a random rank and moment, seed
 * printed; every run must end in its bound, named, leaving nothing. {@code bench/faults N} runs
 * the long campaign. {@code -Dshmpi.faults.workloads=spawn,connect} and {@code
 * -Dshmpi.faults.kinds=stop} select workloads and faults (comma-separated; default all).
 */
@Timeout(7200) // each run is bounded on its own (start 90 s, end its bound + 60 s); bench/faults runs 200
class FaultCampaignIT
{
    @Test
    void faultsAtRandomMomentsEndTheJobCleanly(@TempDir final Path work) throws Exception
    {
        final long seed = Long.getLong("shmpi.faults.seed", System.currentTimeMillis());
        final int runs = Integer.getInteger("shmpi.faults.runs", 14);
        final List<FaultCampaign.Outcome> outcomes = FaultCampaign.campaign(seed, runs, work,
            FaultCampaign.selected("shmpi.faults.workloads", FaultCampaign.WORKLOADS),
            FaultCampaign.selected("shmpi.faults.kinds", FaultCampaign.FAULTS));
        final String report = FaultCampaign.report(seed, outcomes);
        System.out.print(report);
        assertTrue(outcomes.stream().allMatch(FaultCampaign.Outcome::ok), report);
    }
}
