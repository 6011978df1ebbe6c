// The V8 flags a headless hub starts with when swb launches it (bin/swb passes the same to `swb hub`,
// and turns the reducer off for the thin client and every other command, whose start leaves little
// to give back; the workspace server caps its heap's growth instead and runs without the reducer,
// server-node-flags.ts says why). Why:
// V8's memory reducer notices a process going idle after its start and runs full collections to
// hand the start's garbage back, 10-60 s in: two, of which the second frees nothing (seen with
// --trace-gc: "Mark-Compact (reduce) 24.9 (37.7) -> 21.1 (23.5) MB", then "21.1 -> 21.1"). Each
// cost 50-130 ms of CPU on these shared machines; an idle dashboard's first five minutes may
// spend 150 ms in all (issue #33). One collection keeps the memory it gives back (12 MB of a
// 98 MB server with 16 rows).
export const IDLE_V8_FLAGS: readonly string[] = ['--memory-reducer-single-gc'];
