// Shim of @hydraharness/harness-typert-protocol: the `Remote` method decorator
// (a no-op) and the service base class that keeps its context.
export function Remote(_name) {
  return () => undefined;
}

export class TypertRemoteService {
  constructor(ctx, name) {
    this.ctx = ctx;
    this.serviceName = name;
  }
}
