// The V8 flags swb's long-lived processes start with (the workspace server and a headless hub
// here; the thin client and every command through bin/swb, which passes the same by hand). Why:
// V8's memory reducer notices a process going idle after its start and runs full collections to
// hand the start's garbage back, 10-60 s in: two, of which the second frees nothing (seen with
// --trace-gc: "Mark-Compact (reduce) 24.9 (37.7) -> 21.1 (23.5) MB", then "21.1 -> 21.1"). Each
// cost 50-130 ms of CPU on these shared machines; an idle dashboard's first five minutes may
// spend 150 ms in all (issue #33). One collection keeps the memory it gives back.
export const IDLE_V8_FLAGS: readonly string[] = ['--memory-reducer-single-gc'];
