/**
 * The tool playground behind Settings → Tools → Try it: one call through the full executor with
 * every enabled tool (no profile, no turn), stoppable by the run id its caller chose.
 */
import type { MethodRequest, ToolRunResult } from '../../src-shared/contract'
import type { ToolExecutor } from './executor'

export class ToolPlayground {
  private readonly running = new Map<string, AbortController>()

  constructor(
    private readonly executor: ToolExecutor,
    private readonly user: string,
  ) {}

  async run({
    name,
    arguments: args,
    workingDir,
    mode,
    runId,
  }: MethodRequest<'tools.run'>): Promise<ToolRunResult> {
    const controller = new AbortController()
    if (runId) this.running.set(runId, controller)
    try {
      return await this.executor.execute(
        { name, arguments: args },
        {
          user: this.user,
          workingDirectory: workingDir,
          mode,
          restrict: mode === 'agent',
          signal: controller.signal,
        },
      )
    } finally {
      if (runId && this.running.get(runId) === controller) this.running.delete(runId)
    }
  }

  stop({ runId }: { runId: string }): { stopped: boolean } {
    const controller = this.running.get(runId)
    controller?.abort(new Error('Stopped by the user.'))
    return { stopped: controller !== undefined }
  }
}
