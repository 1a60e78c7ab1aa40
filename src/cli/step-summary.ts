import { checkWritable, type CommandIO } from './command.js';

/**
 * Whether `$GITHUB_STEP_SUMMARY` is set and can be appended to (when no `--summary` is given). One
 * that cannot (its folder missing) is said on stderr, once, before anything is compared: the gate's
 * verdict still decides the exit status, and stdout still has the summary.
 */
export async function usableStepSummary(
  file: string | undefined,
  io: CommandIO,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const step = env.GITHUB_STEP_SUMMARY;
  if (file !== undefined || step === undefined || step === '') return false;
  try {
    await checkWritable('$GITHUB_STEP_SUMMARY', step);
    return true;
  } catch (error) {
    io.stderr.write(`salvo: warning: ${(error as Error).message}; the step summary is not written\n`);
    return false;
  }
}
