package org.shmpi.launcher;

/** The shmpi version, from the jar manifest (set by the build). */
final class Version
{
    static final String VERSION = version();

    private Version()
    {
    }

    private static String version()
    {
        final String v = Version.class.getPackage().getImplementationVersion();
        return v != null ? v : "development";
    }
}
