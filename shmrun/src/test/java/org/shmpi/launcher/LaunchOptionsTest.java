package org.shmpi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.shmpi.affinity.MappingPolicy;

class LaunchOptionsTest
{
    private static LaunchOptions parse(final String... args)
    {
        return LaunchOptions.parse(args, Map.of("HOME_VAR", "from-caller"));
    }

    @Test
    void classpathForm()
    {
        final LaunchOptions o = parse("-np", "4", "-cp", "a.jar:b.jar", "my.Main", "x", "-y");
        assertEquals(4, o.np());
        assertEquals(List.of("a.jar", "b.jar"), o.classpath());
        assertEquals("my.Main", o.mainClass());
        assertEquals(List.of("x", "-y"), o.programArgs());
    }

    @Test
    void javaForm()
    {
        final LaunchOptions o = parse("-n", "2", "java", "-Xmx1g", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "-classpath", "cp", "Main", "arg");
        assertEquals(2, o.np());
        assertEquals(List.of("-Xmx1g", "--add-opens", "java.base/java.lang=ALL-UNNAMED"), o.jvmArgs());
        assertEquals(List.of("cp"), o.classpath());
        assertEquals("Main", o.mainClass());
        assertEquals(List.of("arg"), o.programArgs());
    }

    @Test
    void launcherOptions()
    {
        final LaunchOptions o = parse("-np=3", "--bind-to", "core", "--report-bindings", "--timeout=7",
            "--tag-output", "-x", "A=1", "-x", "HOME_VAR", "-x", "MISSING", "-Dp=q", "--jvm-arg", "-Xss1m",
            "--mca", "ring.capacity", "65536", "--keep-shm", "-cp", ".", "M");
        assertEquals(3, o.np());
        assertEquals(MappingPolicy.CORE, o.bindTo);
        assertTrue(o.reportBindings && o.tagOutput && o.keepShm);
        assertEquals(7, o.timeoutSeconds);
        assertEquals(Map.of("A", "1", "HOME_VAR", "from-caller"), o.env());
        assertEquals(List.of("-Dp=q", "-Xss1m", "-Dshmpi.ring.capacity=65536"), o.jvmArgs());
    }

    @Test
    void actionsNeedNoProgram()
    {
        assertEquals(LaunchOptions.Action.HELP, parse("-h").action());
        assertEquals(LaunchOptions.Action.VERSION, parse("--version").action());
        assertEquals(LaunchOptions.Action.CLEANUP, parse("--cleanup").action());
        assertEquals(LaunchOptions.Action.INFO, parse("--info").action());
    }

    @Test
    void badCommandLinesSayWhatIsWrong()
    {
        assertMessage("missing -np N", "-cp", ".", "M");
        assertMessage("number of ranks must be at least 1", "-np", "0", "-cp", ".", "M");
        assertMessage("-np needs a number", "-np", "four", "-cp", ".", "M");
        assertMessage("unknown option: --nope", "-np", "2", "--nope", "-cp", ".", "M");
        assertMessage("missing program", "-np", "2");
        assertMessage("missing main class", "-np", "2", "-cp", ".");
        assertMessage("--bind-to", "-np", "2", "--bind-to", "socket", "-cp", ".", "M");
        assertMessage("jar file not found", "-np", "2", "-jar", "/nonexistent.jar");
        assertMessage("missing main class after java", "-np", "2", "java", "-Xmx1g");
        assertMessage("--timeout must be at least 1", "-np", "2", "--timeout", "0", "-cp", ".", "M");
    }

    private static void assertMessage(final String expected, final String... args)
    {
        final LaunchOptions.UsageException ex = assertThrows(LaunchOptions.UsageException.class, () -> parse(args));
        assertTrue(ex.getMessage().contains(expected), "message '" + ex.getMessage() + "' lacks '" + expected + "'");
    }
}
