// An instance's recorded status changes with their reasons, newest first (the dashboard's history).
import type { InstancesRepo, StatusChange } from '../store/instances-repo.js';

export class StatusHistoryService {
  constructor(private readonly instances: Pick<InstancesRepo, 'history'>) {}

  list(instanceId: string, limit: number): Promise<StatusChange[]> {
    return this.instances.history(instanceId, limit);
  }
}
