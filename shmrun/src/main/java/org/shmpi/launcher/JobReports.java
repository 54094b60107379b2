package org.shmpi.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

import org.shmpi.report.JobInfo;
import org.shmpi.report.JobReport;
import org.shmpi.shm.ShmpiConfig;
import org.shmpi.shm.settings.SettingsRegistry;

/**
 * The launcher's side of the job report ({@code shmrun --report DIR}, or the setting
 * {@code shmpi.report.dir}): before the job, the directory is made and the ranks' records of an
 * earlier job removed, and every rank (spawned ones too) is told where to record; after the job,
 * however it ended, the report is built from what the ranks wrote and its summary printed.
 */
final class JobReports
{
    /** Tells the ranks that the launcher builds the report (so rank 0 does not at Finalize). */
    static final String BY_LAUNCHER_ENV = "SHMPI_REPORT_BY_LAUNCHER";

    private final Path dir;
    private final String command;
    private final int ranks;
    private final long startMillis = System.currentTimeMillis();
    private final long startNs = System.nanoTime();
    private final PrintStream err;

    private JobReports(final Path dir, final String command, final int ranks, final PrintStream err)
    {
        this.dir = dir;
        this.command = command;
        this.ranks = ranks;
        this.err = err;
    }

    /** Prepares the report of the job {@code options} describes, or returns null when none is asked for. */
    static JobReports prepare(final LaunchOptions options, final ShmpiConfig config, final String[] args,
        final PrintStream err) throws IOException
    {
        final String asked = options.reportDir != null ? options.reportDir :
            config.isSet(SettingsRegistry.REPORT_DIR) ? config.text(SettingsRegistry.REPORT_DIR) : null;
        if (asked == null || asked.isEmpty())
        {
            return null;
        }
        final Path dir = Path.of(asked).toAbsolutePath().normalize();
        final Path records = dir.resolve(JobReport.RANKS_DIR);
        Files.createDirectories(records);
        try (DirectoryStream<Path> old = Files.newDirectoryStream(records, "rank-*"))
        {
            for (final Path p : old)
            {
                Files.deleteIfExists(p);
            }
        }
        options.env.put(SettingsRegistry.REPORT_DIR.envName(), dir.toString());
        options.env.put(BY_LAUNCHER_ENV, "1");
        return new JobReports(dir, "shmrun " + String.join(" ", args), options.np, err);
    }

    /** Builds the report after the job ended with {@code exitCode}, and prints its summary. */
    void finish(final int exitCode)
    {
        try
        {
            final JobReport report = JobReport.build(dir, new JobInfo(command, Math.max(ranks, 0), exitCode,
                startMillis, System.nanoTime() - startNs));
            err.print(report.summary());
            for (final String w : report.warnings())
            {
                err.println("shmrun: report: " + w);
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("shmrun: cannot write the job report in " + dir + ": " + ex);
        }
    }

    /** {@code shmrun --report-text DIR}: builds the report from the records in DIR and prints its summary. */
    static int text(final Path dir, final PrintStream err)
    {
        if (!Files.isDirectory(dir.resolve(JobReport.RANKS_DIR)))
        {
            err.println("shmrun: no job report records in " + dir + " (expected " + dir.resolve(JobReport.RANKS_DIR) +
                ")");
            return 1;
        }
        try
        {
            final JobReport report = JobReport.build(dir, new JobInfo("", 0, null, 0, 0));
            System.out.print(report.summary());
            for (final String w : report.warnings())
            {
                err.println("shmrun: report: " + w);
            }
            return 0;
        }
        catch (final IOException | RuntimeException ex)
        {
            err.println("shmrun: cannot build the job report in " + dir + ": " + ex);
            return 1;
        }
    }
}
