import { once } from "node:events";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { settleWorker, type WorkerLimits } from "../../lib/process/worker-settle";

// lib/process/worker-settle.ts: the one settle-once closure the three off-thread readers share
// (JSON, OTLP protobuf, SQLite). Each case runs a real worker thread from inline source.

const limits = (maxMs = 5_000): WorkerLimits => ({
  maxMs,
  timedOut: () => new Error("timed out"),
  outOfMemory: () => new Error("out of memory"),
  exited: (code) => new Error(`exited ${code}`),
});

/** A worker answering "a", "b" (each after the parent asks "next"), then "end". */
const talker = () =>
  new Worker(
    `const { parentPort } = require("node:worker_threads");
     const steps = ["a", "b", "end"]; let i = 0;
     parentPort.on("message", () => parentPort.postMessage(steps[i++]));
     parentPort.postMessage("start");`,
    { eval: true },
  );

describe("settleWorker", () => {
  it("hands every message to onMessage, asks for the next one, resolves once and stops the worker", async () => {
    const w = talker();
    const exited = once(w, "exit");
    const seen: string[] = [];
    const v = await settleWorker<string[], string>(w, limits(), (m, s) => {
      seen.push(m);
      if (m === "start") s.stopClock();
      if (m === "end") return s.resolve(seen);
      s.next();
    });
    expect(v).toEqual(["start", "a", "b", "end"]);
    await exited; // terminated after settling: the exit that follows changes nothing
  });

  it("rejects with the time limit's error when the worker does not answer in time, and stops it", async () => {
    const w = new Worker(`setInterval(() => {}, 1000);`, { eval: true });
    const exited = once(w, "exit");
    await expect(settleWorker(w, limits(100), () => {})).rejects.toThrow("timed out");
    await exited;
  });

  it("stopClock lifts the time limit: groups may come after it", async () => {
    const w = talker();
    const v = settleWorker<string, string>(w, limits(2_000), (m, s) => {
      if (m === "start") {
        s.stopClock();
        setTimeout(() => s.next(), 3_000); // past maxMs
        return;
      }
      s.resolve(m);
    });
    await expect(v).resolves.toBe("a");
  });

  it("rejects with what onMessage throws, once, and stops the worker", async () => {
    const w = talker();
    const exited = once(w, "exit");
    await expect(
      settleWorker(w, limits(), () => {
        throw new Error("bad group");
      }),
    ).rejects.toThrow("bad group");
    await exited;
  });

  it("names a worker stopped past its heap cap with the out-of-memory error", async () => {
    const w = new Worker(`const a = []; for (;;) a.push(new Array(1e5).fill({ x: 1 }));`, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 16 } });
    await expect(settleWorker(w, limits(60_000), () => {})).rejects.toThrow("out of memory");
  });

  it("names a worker that exits without answering", async () => {
    const w = new Worker(`process.exit(3)`, { eval: true });
    await expect(settleWorker(w, limits(), () => {})).rejects.toThrow("exited 3");
  });
});
