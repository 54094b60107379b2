package org.shmpi.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * A finished (or killed) command of the cluster tests ({@link SlurmIT}, {@link SshHostsIT}): what
 * ran, the pid it is known by (-1: none), its exit code and output.
 */
final class CommandOutcome
{
    final String what;
    final long pid;
    final int exit;
    final String out;
    final String err;

    CommandOutcome(final String what, final long pid, final int exit, final String out, final String err)
    {
        this.what = what;
        this.pid = pid;
        this.exit = exit;
        this.out = out;
        this.err = err;
    }

    /** The non-blank lines of stdout, stripped. */
    List<String> lines()
    {
        final List<String> lines = new ArrayList<>();
        for (final String l : out.split("\n"))
        {
            if (!l.isBlank())
            {
                lines.add(l.strip());
            }
        }
        return lines;
    }

    /**
     * The SKIP line of a set-up script that exited 77 ({@code script}: its name), else a line
     * saying so with the whole outcome.
     */
    String skipLine(final String script)
    {
        for (final String l : (out + "\n" + err).split("\n"))
        {
            if (l.startsWith("SKIP:"))
            {
                return l;
            }
        }
        return "SKIP: " + script + " exited 77\n" + this;
    }

    @Override
    public String toString()
    {
        return what + "\n" + (pid >= 0 ? "pid=" + pid + " " : "") + "exit=" + exit + "\n--- stdout ---\n" + out +
            "--- stderr ---\n" + err;
    }
}
