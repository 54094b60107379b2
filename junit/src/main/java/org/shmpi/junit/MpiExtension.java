package org.shmpi.junit;

import java.io.IOException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The extension behind {@link MpiTest}: one invocation of the test method per rank count, each
 * run on every rank of a job that the class's methods share ({@link TestJob}). In the test JVM
 * the method body, its {@code @BeforeEach} and its {@code @AfterEach} methods do not run: the
 * ranks run them.
 */
public final class MpiExtension implements TestTemplateInvocationContextProvider, ClassTemplateInvocationContextProvider
{
    private static final String CLASS_RUN = "class-run";
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(MpiExtension.class);
    private static final int[] DEFAULT_NP = {2};

    @Override
    public boolean supportsTestTemplate(final ExtensionContext context)
    {
        return context.getTestMethod().map(m -> AnnotationSupport.isAnnotated(m, MpiTest.class)).orElse(false);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(final ExtensionContext context)
    {
        final Method method = context.getRequiredTestMethod();
        final MpiTest onMethod = AnnotationSupport.findAnnotation(method, MpiTest.class).orElseThrow();
        final int maxNp = Settings.maxNp();
        final ClassRankCount classRun = context.getStore(NAMESPACE).get(CLASS_RUN, ClassRankCount.class);
        if (classRun != null)
        {
            // Inside one of its class's runs: once, at that run's rank count.
            return Stream.of(new RankCount(classRun.np, onMethod.timeout() > 0 ? onMethod.timeout() : classRun.timeoutS,
                maxNp, classRun.shmrunArgs));
        }
        final int[] np = onMethod.np().length > 0 ? onMethod.np() : DEFAULT_NP;
        final int t = onMethod.timeout() != 0 ? onMethod.timeout() :
            Settings.getInt(Settings.TIMEOUT, Settings.DEFAULT_TIMEOUT_S);
        check(np, t, method);
        final List<String> args = List.of(onMethod.shmrunArgs());
        return Arrays.stream(np).distinct().mapToObj(n -> new RankCount(n, t, maxNp, args));
    }

    @Override
    public boolean supportsClassTemplate(final ExtensionContext context)
    {
        return context.getTestClass().map(c -> AnnotationSupport.isAnnotated(c, MpiTest.class)).orElse(false);
    }

    @Override
    public Stream<ClassTemplateInvocationContext> provideClassTemplateInvocationContexts(final ExtensionContext context)
    {
        final Class<?> testClass = context.getRequiredTestClass();
        final MpiTest onClass = AnnotationSupport.findAnnotation(testClass, MpiTest.class).orElseThrow();
        final int[] np = onClass.np().length > 0 ? onClass.np() : DEFAULT_NP;
        final int timeout = onClass.timeout() > 0 ? onClass.timeout() :
            Settings.getInt(Settings.TIMEOUT, Settings.DEFAULT_TIMEOUT_S);
        check(np, timeout, testClass);
        final int maxNp = Settings.maxNp();
        final List<String> args = List.of(onClass.shmrunArgs());
        return Arrays.stream(np).distinct().mapToObj(n -> new ClassRankCount(n, timeout, maxNp, args));
    }

    @Override
    public boolean mayReturnZeroClassTemplateInvocationContexts(final ExtensionContext context)
    {
        return false;
    }

    private static void check(final int[] np, final int timeout, final Object where)
    {
        for (final int n : np)
        {
            if (n < 1)
            {
                throw new IllegalArgumentException("@MpiTest(np = " + Arrays.toString(np) + ") on " + where +
                    ": every rank count must be at least 1");
            }
        }
        if (timeout < 1)
        {
            throw new IllegalArgumentException("@MpiTest(timeout = " + timeout + ") on " + where +
                ": the timeout is at least 1 second");
        }
    }

    /** The cap's condition, for a method's run or a class's. */
    static ConditionEvaluationResult capped(final int np, final int maxNp)
    {
        if (maxNp > 0 && np > maxNp)
        {
            return ConditionEvaluationResult.disabled("np=" + np + " is above the cap of " + maxNp + " ranks (" +
                Settings.MAX_NP + " / " + Settings.envName(Settings.MAX_NP) + ")");
        }
        return ConditionEvaluationResult.enabled("np=" + np);
    }

    /**
     * The class's jobs, in the store of the nearest context that is not a method's: closed when it
     * ends. One per rank count and list of {@code shmrunArgs}.
     */
    static JobHolder holder(final ExtensionContext context, final int np, final List<String> shmrunArgs)
    {
        ExtensionContext classContext = context;
        while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent())
        {
            classContext = classContext.getParent().get();
        }
        return classContext.getStore(NAMESPACE).getOrComputeIfAbsent("jobs." + np + " " + shmrunArgs,
            k -> new JobHolder(), JobHolder.class);
    }

    /**
     * One rank count of a method or class: its name ({@code [np=N]}, under the method's or class's
     * own node: IDEs show {@code ring() > [np=4]}, surefire's phrased names {@code ring() [np=4]}),
     * its skip condition (the cap), and the run of each test method on the ranks. In the test JVM
     * the method body and its {@code @BeforeEach}/{@code @AfterEach} methods are skipped: every
     * rank runs them.
     */
    abstract static class RanksRun implements ExecutionCondition, InvocationInterceptor
    {
        final int np;
        final int timeoutS;
        private final int maxNp;
        /** {@link MpiTest#shmrunArgs()}. */
        final List<String> shmrunArgs;

        RanksRun(final int np, final int timeoutS, final int maxNp, final List<String> shmrunArgs)
        {
            this.np = np;
            this.timeoutS = timeoutS;
            this.maxNp = maxNp;
            this.shmrunArgs = shmrunArgs;
        }

        public String getDisplayName(final int invocationIndex)
        {
            return "[np=" + np + "]";
        }

        public List<Extension> getAdditionalExtensions()
        {
            return List.of(this);
        }

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(final ExtensionContext context)
        {
            return capped(np, maxNp);
        }

        final void runOnRanks(final Invocation<Void> invocation, final ReflectiveInvocationContext<Method> call,
            final ExtensionContext context) throws Throwable
        {
            invocation.skip();
            final Method m = call.getExecutable();
            if (m.getParameterCount() != 0)
            {
                throw new IllegalArgumentException("test method " + m + " takes parameters; the ranks run it " +
                    "without any (read MPI.COMM_WORLD for the rank and size)");
            }
            holder(context, np, shmrunArgs).run(np, shmrunArgs, context.getRequiredTestClass().getName(), m.getName(),
                timeoutS);
        }

        @Override
        public void interceptBeforeEachMethod(final Invocation<Void> invocation,
            final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext context)
        {
            invocation.skip();
        }

        @Override
        public void interceptAfterEachMethod(final Invocation<Void> invocation,
            final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext context)
        {
            invocation.skip();
        }
    }

    /**
     * One rank count of a class annotated {@code @MpiTest}: its {@code @Test} methods run on the
     * ranks of that count's job.
     */
    static final class ClassRankCount extends RanksRun implements ClassTemplateInvocationContext
    {
        ClassRankCount(final int np, final int timeoutS, final int maxNp, final List<String> shmrunArgs)
        {
            super(np, timeoutS, maxNp, shmrunArgs);
        }

        @Override
        public void prepareInvocation(final ExtensionContext context)
        {
            context.getStore(NAMESPACE).put(CLASS_RUN, this);
        }

        @Override
        public void interceptTestMethod(final Invocation<Void> invocation,
            final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext context)
            throws Throwable
        {
            runOnRanks(invocation, invocationContext, context);
        }
    }

    @Override
    public boolean mayReturnZeroTestTemplateInvocationContexts(final ExtensionContext context)
    {
        return false;
    }

    /** One rank count of one {@code @MpiTest} method. */
    static final class RankCount extends RanksRun implements TestTemplateInvocationContext
    {
        RankCount(final int np, final int timeoutS, final int maxNp, final List<String> shmrunArgs)
        {
            super(np, timeoutS, maxNp, shmrunArgs);
        }

        @Override
        public void interceptTestTemplateMethod(final Invocation<Void> invocation,
            final ReflectiveInvocationContext<Method> invocationContext, final ExtensionContext context)
            throws Throwable
        {
            runOnRanks(invocation, invocationContext, context);
        }
    }

    /** The current job of one class at one rank count; a broken job is replaced before the next run. */
    /**
     * With the setting {@code shmpi.report.dir} (a system property of the test JVM, or the
     * environment) each test job writes its job report into its own folder of it,
     * {@code <simple class name>-np<N>}, unless the test names one itself ({@code --report}).
     */
    static List<String> withReport(final List<String> shmrunArgs, final String className, final int np)
    {
        final String dir = Settings.get(org.shmpi.shm.settings.SettingsRegistry.REPORT_DIR.name());
        if (dir == null || shmrunArgs.contains("--report"))
        {
            return shmrunArgs;
        }
        final List<String> args = new java.util.ArrayList<>(shmrunArgs);
        args.add("--report");
        args.add(java.nio.file.Path.of(dir, className.substring(className.lastIndexOf('.') + 1) + "-np" + np)
            .toString());
        return args;
    }

    static final class JobHolder implements AutoCloseable
    {
        private TestJob job;

        synchronized void run(final int np, final List<String> shmrunArgs, final String className,
            final String methodName, final int timeoutS) throws Throwable
        {
            if (job != null && job.broken())
            {
                job.close();
                job = null;
            }
            if (job == null)
            {
                try
                {
                    job = TestJob.start(np, withReport(shmrunArgs, className, np));
                }
                catch (final IOException ex)
                {
                    throw new MpiTestFailure(-1, "cannot start a test job of " + np + " ranks: " + ex);
                }
            }
            job.run(className, methodName, timeoutS);
        }

        @Override
        public synchronized void close()
        {
            if (job != null)
            {
                job.close();
                job = null;
            }
        }
    }
}
