"""Strings of the page "Inside the kernel" (flashviz/ui/inside.py) and its charts (charts/timeline.py).
Terms: warp and warpgroup stay in Latin (like kernel, tile, program), CTA, 生产者/消费者 (producer/consumer),
乒乓调度 (ping-pong), 插桩 (instrumentation), 周期 (cycles), 特殊函数单元 SFU, 张量核心 (tensor cores)."""

STRINGS = {
    "inside.nav": {"en": "Inside the kernel", "zh": "kernel 内部"},
    "inside.title": {"en": "Inside the kernel: one loop, warp by warp", "zh": "kernel 内部：一个循环，逐个 warp 看"},
    "inside.intro": {
        "en": "For every key tile a CTA runs the same loop: load K, Q·Kᵀ on the tensor cores, the softmax (its "
              "exponentials on the special-function unit, which does a small fraction of the tensor cores' work per "
              "clock), then P·V. The warp-specialised `ws` kernel hands the copies to a producer warp that runs "
              "ahead and keeps two consumer warpgroups at work side by side, so that one's softmax can run while "
              "the other's matrix multiply uses the tensor cores.",
        "zh": "对每个 key tile，一个 CTA 都执行同一个循环：加载 K，在张量核心上算 Q·Kᵀ，做 softmax（其中的指数运算在"
              "特殊函数单元 SFU 上进行，它每个时钟周期完成的工作只有张量核心的一小部分），再算 P·V。warp 特化的 `ws` "
              "kernel 把拷贝交给一个提前运行的生产者 warp，并让两个消费者 warpgroup 同时工作：一个在算 softmax 时，另一个的"
              "矩阵乘法可以占用张量核心。"},

    # the opening picture
    "inside.dataset": {"en": "Recording", "zh": "录制文件"},
    "inside.config": {"en": "Configuration", "zh": "配置"},
    "inside.config_fmt": {"en": "N = {n} · d = {d} · {mask} · B = {batch}, H = {heads} · {dtype}",
                          "zh": "N = {n} · d = {d} · {mask} · B = {batch}，H = {heads} · {dtype}"},
    "inside.mask_causal": {"en": "causal", "zh": "因果"},
    "inside.mask_full": {"en": "non-causal", "zh": "非因果"},
    "inside.mask_none": {"en": "no mask", "zh": "无掩码"},
    "inside.window_title": {"en": "{k} loop iterations from the middle of one CTA, each kernel on the same time scale",
                            "zh": "一个 CTA 循环中段的 {k} 次迭代，两个 kernel 用同一时间尺度"},
    "inside.window_row": {"en": "{impl} · {role} (warp {w})", "zh": "{impl} · {role}（warp {w}）"},
    "inside.axis_window_us": {"en": "time from the window's start (µs at {clock} MHz)",
                              "zh": "距窗口起点的时间（µs，按 {clock} MHz）"},
    "inside.axis_window_kcycles": {"en": "time from the window's start (thousands of SM cycles)",
                                   "zh": "距窗口起点的时间（千个 SM 周期）"},
    "inside.window_caption": {
        "en": "One row per role, drawn from its first warp (the other warps of a warpgroup run the same steps). "
              "Dotted: warpgroup 0 starts Q·Kᵀ on the next key tile. Tiles: fast {fast}, ws {ws} (query rows × keys).",
        "zh": "每种角色一行，取该角色的第一个 warp（同一 warpgroup 的其他 warp 执行相同的步骤）。虚线：warpgroup 0 "
              "开始对下一个 key tile 算 Q·Kᵀ。tile 大小：fast {fast}，ws {ws}（query 行数 × key 数）。"},
    "inside.default_shown": {
        "en": "The page opens on the configuration whose ws run used ping-pong, FlashAttention-3's schedule; pick "
              "another above.",
        "zh": "页面默认打开 ws 使用了乒乓调度（FlashAttention-3 的调度）的那个配置；可在上方改选。"},
    "inside.takeaway_ws": {
        "en": "**What the recording shows** (ws, {schedule}): the producer issued each K tile a median {lead} "
              "iterations ({lead_t}) before warpgroup 0 began its Q·Kᵀ on it, and for {under} % of warpgroup 0's "
              "softmax time warpgroup 1 was in a matrix multiply ({both} % in its own softmax).",
        "zh": "**录制结果显示**（ws，{schedule}）：生产者发起每个 K tile 的拷贝，中位数比 warpgroup 0 开始对它算 Q·Kᵀ "
              "早 {lead} 次迭代（{lead_t}）；在 warpgroup 0 做 softmax 的时间里，有 {under} % 的时间 warpgroup 1 "
              "正在做矩阵乘法（{both} % 的时间它也在做 softmax）。"},
    "inside.takeaway_fast": {
        "en": "**What the recording shows** (fast): each warp runs load K → Q·Kᵀ → softmax → P·V in turn, and "
              "{share} % of every iteration is its softmax.",
        "zh": "**录制结果显示**（fast）：每个 warp 依次执行「加载 K → Q·Kᵀ → softmax → P·V」，每次迭代中有 {share} % 的"
              "时间在做 softmax。"},
    "inside.sched_overlap+pingpong": {"en": "softmax of tile j overlapped with P·V of tile j−1, and ping-pong",
                                      "zh": "tile j 的 softmax 与 tile j−1 的 P·V 重叠，并且乒乓调度"},
    "inside.sched_overlap": {"en": "softmax of tile j overlapped with P·V of tile j−1, no ping-pong",
                             "zh": "tile j 的 softmax 与 tile j−1 的 P·V 重叠，不用乒乓调度"},
    "inside.sched_pingpong": {"en": "ping-pong, no overlap of softmax with P·V",
                              "zh": "乒乓调度，softmax 不与 P·V 重叠"},
    "inside.sched_plain": {"en": "neither overlap nor ping-pong", "zh": "既不重叠也不乒乓"},
    "inside.sched_unknown": {"en": "schedule not recorded", "zh": "未记录调度"},

    # for students: why
    "inside.why_header": {"en": "For students: why the softmax is the slow step, and what warp specialisation changes",
                          "zh": "给学生：为什么 softmax 是慢的一步，warp 特化改变了什么"},
    "inside.why_text": {
        "en": "Each (query, key) pair costs 4·d FLOP of matrix multiply (its score in Q·Kᵀ, its share of P·V) and one "
              "exponential. An H100/H200 SM does {tc} dense fp16 FLOP per clock on its tensor cores, but "
              "exponentials run on its special-function unit (SFU, also called MUFU) at {sfu} per clock. So a tile's "
              "exponentials need {r128} of the clock cycles of its matrix multiplies at d = 128, and {r64} at "
              "d = 64: while a warp waits on the SFU, the tensor cores idle unless another warp feeds them.\n\n"
              "In the `fast` kernel (FlashAttention-2's schedule) every warp of a CTA does every step in turn: the "
              "copies and matrix multiplies are asynchronous, but the same warps start them and wait for them.\n\n"
              "FlashAttention-3 splits the roles:\n"
              "- a **producer** only issues TMA copies of K_j and V_j into a ring of shared-memory stages. In "
              "FlashAttention-3 it is a whole warpgroup (4 warps): setmaxnreg, which hands the producer's registers "
              "to the consumers, acts on a warpgroup at a time, and one thread of it issues each copy. In the `ws` "
              "kernel here the producer is **one warp**, this project's choice (hence one producer row); the launch "
              "still rounds up to whole warpgroups ({warps} warps with two consumers), and setmaxnreg leaves the "
              "producer's warpgroup {preg} registers a thread and gives the consumers {creg};\n"
              "- two **consumer warpgroups** (4 warps each) own 64 of the block's 128 query rows each and run "
              "Q·Kᵀ, the online softmax and P·V (at d = 64 the `ws` kernel runs three on 192 rows, as "
              "FlashAttention-3 does there: it measured faster on the H200);\n"
              "- **ping-pong**: because the SFU is the slow unit, FlashAttention-3 makes the two consumers take turns "
              "issuing their matrix multiplies, so one warpgroup's softmax runs while the other's Q·Kᵀ or P·V keeps "
              "the tensor cores busy; within a warpgroup it also overlaps one tile's softmax with the previous "
              "tile's P·V.\n\n"
              "Ping-pong and that overlap are switches of the `ws` kernel; its defaults keep what measured faster "
              "on the H200. The table below gives, for every configuration of this recording, the schedule that "
              "ran and what its timeline shows.",
        "zh": "每个 (query, key) 对需要 4·d 次矩阵乘法 FLOP（Q·Kᵀ 里它的分数、P·V 里它的一份）和一次指数运算。"
              "H100/H200 的一个 SM 每个时钟周期在张量核心上能做 {tc} 次稠密 fp16 FLOP，而指数运算在特殊函数单元"
              "（SFU，也叫 MUFU）上进行，每个时钟周期只有 {sfu} 次。所以一个 tile 的指数运算所需的时钟周期，在 d = 128 "
              "时是它的矩阵乘法的 {r128}，在 d = 64 时是 {r64}：一个 warp 等 SFU 时，除非有别的 warp 给张量核心供数，"
              "张量核心就闲着。\n\n"
              "在 `fast` kernel（FlashAttention-2 的调度）里，一个 CTA 的每个 warp 依次做所有步骤：拷贝和矩阵乘法是异步的，"
              "但发起和等待它们的是同一批 warp。\n\n"
              "FlashAttention-3 把角色拆开：\n"
              "- **生产者**只负责发起 TMA 拷贝，把 K_j、V_j 放进共享内存里的多级环形缓冲区。在 FlashAttention-3 中它是一整个 "
              "warpgroup（4 个 warp）：把生产者的寄存器让给消费者的 setmaxnreg 指令以 warpgroup 为单位生效，并由其中一个线程"
              "发起每次拷贝。本项目的 `ws` kernel 里生产者是**一个 warp**，这是本项目的选择（所以图中只有一行生产者）；启动时"
              "仍凑成整数个 warpgroup（两个消费者时共 {warps} 个 warp），setmaxnreg 给生产者所在的 warpgroup 每线程留 {preg} "
              "个寄存器，给消费者 {creg} 个；\n"
              "- 两个**消费者 warpgroup**（各 4 个 warp）各负责块中 128 行 query 里的 64 行，做 Q·Kᵀ、在线 softmax 和 P·V"
              "（d = 64 时 `ws` kernel 用三个 warpgroup 处理 192 行，与 FlashAttention-3 在这里的做法相同：在 H200 上测得更快）；\n"
              "- **乒乓调度**：因为 SFU 是慢的那个单元，FlashAttention-3 让两个消费者轮流发起矩阵乘法，一个 warpgroup 算 "
              "softmax 时，另一个的 Q·Kᵀ 或 P·V 让张量核心保持忙碌；在一个 warpgroup 内部，它还把一个 tile 的 softmax 与上一个 "
              "tile 的 P·V 重叠。\n\n"
              "乒乓调度和这种重叠都是 `ws` kernel 的开关；它的默认值保留在 H200 上测得更快的那些。下表列出本录制中每个配置"
              "实际运行的调度，以及它的时间线显示了什么。"},
    "inside.col_config": {"en": "configuration", "zh": "配置"},
    "inside.col_schedule": {"en": "ws schedule", "zh": "ws 的调度"},
    "inside.col_lead": {"en": "producer ahead (iterations)", "zh": "生产者提前（迭代数）"},
    "inside.col_under": {"en": "WG 0 softmax with WG 1 in a matmul (%)", "zh": "warpgroup 0 做 softmax 时 warpgroup 1 在做矩阵乘法（%）"},
    "inside.col_both": {"en": "WG 0 softmax with WG 1 in softmax (%)", "zh": "warpgroup 0 做 softmax 时 warpgroup 1 也在做 softmax（%）"},
    "inside.col_sm_share": {"en": "softmax share of an iteration (%)", "zh": "softmax 占一次迭代的比例（%）"},

    # for kernel engineers: the whole CTA
    "inside.cta_header": {"en": "For kernel engineers: the whole CTA, every warp, and the kernels' times",
                          "zh": "给 kernel 工程师：整个 CTA、每个 warp，以及 kernel 的耗时"},
    "inside.schedule_recorded": {"en": "ws schedule in this recording: {schedule}.",
                                 "zh": "本次录制中 ws 的调度：{schedule}。"},
    "inside.schedule_unrecorded": {
        "en": "This recording does not say which ws schedule ran (it predates that field). Today's default for "
              "d = {d}, {mask}: {schedule} (the ws kernel's defaults, picked by measurement), which may differ from "
              "what ran.",
        "zh": "这份录制没有记下 ws 用的是哪种调度（它早于这个字段）。如今 d = {d}、{mask} 的默认调度是：{schedule}"
              "（ws kernel 的默认值，按测量选定），可能与录制时不同。"},
    "inside.consumers_changed": {
        "en": "This recording ran {then} consumer warpgroups ({bm}-row query tiles). At d = {d} the ws kernel now "
              "runs {now} ({bm_now} rows), which measured faster on the H200 after this was recorded; the "
              "timeline shows the layout that ran then.",
        "zh": "这份录制运行的是 {then} 个消费者 warpgroup（每块 {bm} 行 query）。如今 d = {d} 时 ws kernel 运行 {now} 个"
              "（{bm_now} 行），这是录制之后在 H200 上测得更快的配置；时间线展示的是当时运行的布局。"},
    "inside.impl_header": {
        "en": "`{impl}` · kernel `{kernel}` · tiles {bm} × {bn} · {stages} stages · {warps} warps recorded",
        "zh": "`{impl}` · kernel `{kernel}` · tile {bm} × {bn} · {stages} 级流水 · 记录到 {warps} 个 warp"},
    "inside.m_kernel": {"en": "Kernel alone (ms)", "zh": "仅 kernel（ms）"},
    "inside.m_instr": {"en": "Kernel, instrumented (ms)", "zh": "插桩后的 kernel（ms）"},
    "inside.m_kernel_help": {"en": "GPU time of the kernel alone (CUPTI), median of {reps} launches.",
                             "zh": "仅 kernel 的 GPU 时间（CUPTI），{reps} 次启动的中位数。"},
    "inside.m_overhead": {"en": "Instrumentation cost", "zh": "插桩代价"},
    "inside.m_overhead_help": {"en": "Instrumented kernel time / plain kernel time (same timer).",
                               "zh": "插桩 kernel 时间 / 普通 kernel 时间（同一计时方法）。"},
    "inside.m_events": {"en": "Events (CTAs)", "zh": "事件数（CTA 数）"},
    "inside.not_measured": {"en": "not measured", "zh": "未测"},
    "inside.times_text": {
        "en": "A per-call time (triton.testing.do_bench) runs from a CUDA event recorded before the call to one "
              "after it, so if the GPU runs out of queued work while the host still prepares the call (argument "
              "checks, TMA descriptors, the launch), that wait is counted. The kernel-alone time (CUPTI) counts "
              "the kernel only; the difference is host time the GPU waited for, which this recording does not "
              "break down. Small launches show it most: here {impl} took {call} ms per call for a {kernel} ms "
              "kernel.",
        "zh": "每次调用的时间（triton.testing.do_bench）从调用前记录的 CUDA 事件量到调用后的事件；如果主机还在准备这次调用"
              "（检查参数、建立 TMA 描述符、启动），GPU 已经没有排队的工作可做，这段等待也算在内。仅 kernel 的时间"
              "（CUPTI）只计 kernel 本身；两者之差是 GPU 等主机的时间，本录制没有把它进一步拆开。启动规模越小越明显："
              "这里 {impl} 每次调用 {call} ms，而 kernel 只要 {kernel} ms。"},
    "inside.col_impl": {"en": "kernel", "zh": "kernel"},
    "inside.col_call": {"en": "per call (ms)", "zh": "每次调用（ms）"},
    "inside.col_kernel": {"en": "kernel alone (ms)", "zh": "仅 kernel（ms）"},
    "inside.col_host": {"en": "host time waited for (ms)", "zh": "等主机的时间（ms）"},
    "inside.cta_caption": {
        "en": "Drawn: CTA {id} (on SM {core}), the one with the median span, number {rank} of {ctas} ordered by "
              "span: {span} from its first to its last recorded event. All CTAs: {lo} to {hi}.",
        "zh": "图中是 CTA {id}（在 SM {core} 上），即跨度居中的那个：按跨度排序在 {ctas} 个中排第 {rank}，从第一个到"
              "最后一个记录事件共 {span}。所有 CTA：{lo} 到 {hi}。"},
    "inside.us_cycles": {"en": "{us} µs ({k} k cycles)", "zh": "{us} µs（{k} 千周期）"},
    "inside.kcycles": {"en": "{k} k cycles", "zh": "{k} 千周期"},
    "inside.dropped": {
        "en": "Proton's buffer kept {kept} of the {expected} events the loop's trip count predicts ({pct} % "
              "dropped, the earliest ones): each CTA's timeline starts part-way through its loop, and the shares "
              "cover the events kept.",
        "zh": "按循环次数应有 {expected} 个事件，proton 的缓冲区保留了 {kept} 个（丢弃了最早的 {pct} %）：每个 CTA "
              "的时间线从循环中途开始，比例也只覆盖保留下来的事件。"},
    "inside.complete": {"en": "All {expected} events the loop's trip count predicts were recorded ({buffer} buffer).",
                        "zh": "按循环次数预计的 {expected} 个事件全部记录下来了（{buffer}缓冲区）。"},
    "inside.extra": {
        "en": "{kept} events recorded, {expected} predicted from the trip count (each warp entering each of its "
              "scopes once per key tile): this kernel's scopes do not follow that pattern, so drops cannot be told.",
        "zh": "记录到 {kept} 个事件，按循环次数预计 {expected} 个（每个 warp 在每个 key tile 上进入自己的每个 scope 一次）："
              "这个 kernel 的 scope 不符合这个模式，因此无法判断是否丢弃了事件。"},
    "inside.buffer_global": {"en": "global-memory", "zh": "全局内存"},
    "inside.buffer_shared": {"en": "shared-memory", "zh": "共享内存"},
    "inside.gantt_title": {"en": "{impl}: one CTA, one row per warp", "zh": "{impl}：一个 CTA，每个 warp 一行"},
    "inside.not_ok": {"en": "`{impl}` at this configuration: {status}. {msg}", "zh": "`{impl}` 在这个配置下：{status}。{msg}"},
    "inside.status_error": {"en": "not recorded (error)", "zh": "未录到（出错）"},
    "inside.status_no_scopes": {"en": "the kernel has no proton scopes yet", "zh": "该 kernel 还没有 proton scope"},
    "inside.ws_missing": {
        "en": "The warp-specialised `ws` kernel is not in this recording. The measurement includes it by itself "
              "once its Gluon kernel carries proton scopes and the recording is run again where it is active.",
        "zh": "这次录制中没有 warp 特化的 `ws` kernel。一旦它的 Gluon kernel 带上 proton scope，并在它可用的机器上重新"
              "录制，测量会自动把它包括进来。"},

    # for kernel engineers: shares and scopes
    "inside.shares_header": {"en": "For kernel engineers: where a CTA's time goes, averaged over all CTAs",
                             "zh": "给 kernel 工程师：CTA 的时间花在哪里（所有 CTA 的平均）"},
    "inside.shares_title": {"en": "Share of a CTA's time inside each scope (mean over all CTAs)",
                            "zh": "每个 scope 占 CTA 时间的比例（所有 CTA 的平均）"},
    "inside.largest": {
        "en": "**{impl}**, {role}: the largest share is {scope} with {pct} % of the CTA's time; {outside} % is "
              "outside every scope (loop control, prologue and epilogue, the gaps between scopes).",
        "zh": "**{impl}**，{role}：占比最大的是“{scope}”，占 CTA 时间的 {pct} %；{outside} % 不在任何 scope 内"
              "（循环控制、序言与收尾、scope 之间的间隙）。"},
    "inside.col_role": {"en": "warps", "zh": "warp"},
    "inside.col_scope": {"en": "scope", "zh": "scope"},
    "inside.col_share": {"en": "share of CTA time (%)", "zh": "占 CTA 时间（%）"},
    "inside.col_cycles": {"en": "cycles per occurrence (mean)", "zh": "每次的周期数（平均）"},
    "inside.col_count": {"en": "occurrences", "zh": "次数"},
    "inside.scopes_header": {"en": "For kernel engineers: what each scope times", "zh": "给 kernel 工程师：每个 scope 计的是什么"},
    "inside.scopes_text": {
        "en": "- `load_k` (fast): from asking for the tile K_j until the warp has it; the compiler's software "
              "pipeline may have started the copy an iteration earlier, so this can be mostly waiting.\n"
              "- `qk`: S = Q·K_jᵀ on the tensor cores.\n"
              "- `softmax`: mask (where needed), row maximum, exponentials, row sums, and (fast, and ws without "
              "OVERLAP) the rescaling of the running output by α = exp(m_old − m_new).\n"
              "- `load_v_pv` (fast): waiting for V_j, then P·V added into the running output.\n"
              "- `tma_wait_slot` (ws, producer): waiting until every consumer's Q·K_jᵀ has left K's buffer in a "
              "stage of the ring; `tma_issue`: starting the copy of K_j (it completes asynchronously); "
              "`tma_wait_slot_v` and `tma_issue_v`: the same for V_j, whose buffer frees only after P·V.\n"
              "- `wait_kv` (ws, consumers): waiting for K_j to arrive; `wait_turn`: waiting while the other "
              "consumer warpgroup issues its matrix products (ping-pong); `qk` (ws): from issuing Q·K_jᵀ until the "
              "scores are ready (with the OVERLAP switch on, meanwhile the running output is rescaled by the "
              "previous tile's α and the previous tile's P·V is issued, so it runs during this tile's softmax); "
              "`pv` (ws): with OVERLAP, waiting for that P·V to finish; without it, waiting for V_j and running P·V.\n"
              "- Recordings made before commit 02c62b8 (2026-12-01) ran one barrier per ring stage: there "
              "`wait_kv` waited for K_j and V_j together, `tma_wait_slot` / `tma_issue` covered both copies, and "
              "`pv` ended with the rescaling by α.\n"
              "- Under triton 3.6 from commit b5344e3 (2026-12-05) the OVERLAP loop rescales the running output "
              "at the end of `pv`, right after that wait, instead of inside `qk` (a recording's provenance field "
              "`ws_early_rescale` says which).\n"
              "- Under triton 3.6 from commit e0166b7 (2026-12-05), and under 3.8 from later that day, at d = 64, "
              "`softmax` adds up only each lane's "
              "own share of a row's sum; a row's four shares are added once, after its last key tile, outside these "
              "scopes (provenance field `ws_local_sum`).\n"
              "- Under triton 3.8 from commit 089313c (2026-12-05; in every d = 64 launch at fd2176c, just before), "
              "in d = 64 launches without a window, documents or ALiBi, `softmax` finishes both rows a thread "
              "holds (their maxima) before either row's exponentials (provenance field `ws_pair_max`).\n"
              "- Under triton 3.8 from commit ee54fc3 (2026-12-07), in launches that run HALF's half tiles, a "
              "consumer that sees only half of its last key tile runs that half step inside its last `pv` (the Q·Kᵀ "
              "of half a key tile, issued behind that P·V, then its softmax and P·V); before, the step ran outside "
              "the scopes (provenance field `ws_half_tail`).",
        "zh": "- `load_k`（fast）：从请求 K_j 这个 tile 到 warp 拿到它；编译器的软件流水可能已提前一轮发起了拷贝，所以这段"
              "可能主要是在等待。\n"
              "- `qk`：在张量核心上计算 S = Q·K_jᵀ。\n"
              "- `softmax`：（需要时）加掩码、求行最大值、指数、行求和，并（fast，以及关闭 OVERLAP 的 ws）用修正系数 "
              "α = exp(m_old − m_new) 重缩放累积的输出。\n"
              "- `load_v_pv`（fast）：等待 V_j，然后把 P·V 加进累积的输出。\n"
              "- `tma_wait_slot`（ws，生产者）：等所有消费者的 Q·K_jᵀ 用完环形缓冲区某一级里 K 的位置；`tma_issue`：发起 "
              "K_j 的拷贝（拷贝异步完成）；`tma_wait_slot_v` 和 `tma_issue_v`：V_j 的同样两步，V 的位置要等 P·V 算完才空出。\n"
              "- `wait_kv`（ws，消费者）：等 K_j 到达；`wait_turn`：另一个消费者 warpgroup 发出矩阵乘法时在旁等待"
              "（乒乓）；`qk`（ws）：从发出 Q·K_jᵀ 到分数就绪（打开 OVERLAP 开关时，这段时间里会用上一个 tile 的修正系数 α "
              "重缩放累积的输出，并发出上一个 tile 的 P·V，让它与本 tile 的 softmax 同时进行）；`pv`（ws）：打开 OVERLAP "
              "时是等那次 P·V 完成；关闭时是等 V_j 到达并算 P·V。\n"
              "- 提交 02c62b8（2026-12-01）之前的记录，环形缓冲区每级只有一个屏障：那里 `wait_kv` 同时等 K_j 和 V_j，"
              "`tma_wait_slot` / `tma_issue` 涵盖两次拷贝，`pv` 最后还包括用修正系数 α 重缩放。\n"
              "- 在 triton 3.6 下，从提交 b5344e3（2026-12-05）起，OVERLAP 循环在 `pv` 末尾、紧接那次等待之后重缩放"
              "累积的输出，而不是在 `qk` 里（记录的 provenance 字段 `ws_early_rescale` 注明是哪一种）。\n"
              "- 在 triton 3.6 下从提交 e0166b7（2026-12-05）起、在 3.8 下从同一天稍晚起，d = 64 时 `softmax` 的行求和只累加"
              "每个 lane 自己的那一份；"
              "一行的四份在它最后一个 key tile 之后、这些 scope 之外才相加一次（provenance 字段 `ws_local_sum`）。\n"
              "- 在 triton 3.8 下从提交 089313c（2026-12-05；在它之前的 fd2176c 中是所有 d = 64 的启动）起，d = 64 且没有"
              "窗口、文档打包或 ALiBi 的启动中，`softmax` "
              "先算完每个线程持有的两行的最大值，再做任一行的指数（provenance 字段 `ws_pair_max`）。\n"
              "- 在 triton 3.8 下从提交 ee54fc3（2026-12-07）起，在运行 HALF 半块的启动中，若消费者只看到最后一个 key tile 的"
              "一半，它最后一个 `pv` 还包括这半块步骤（半个 key tile 的 Q·Kᵀ，紧跟那次 P·V 发出，然后是它的 softmax 和 P·V）；"
              "此前这一步不在任何 scope 里（provenance 字段 `ws_half_tail`）。"},

    # for anyone reading a profile
    "inside.can_header": {"en": "For anyone reading a profile: what this measurement can and cannot show",
                          "zh": "给读性能剖析的人：这种测量能说明什么、不能说明什么"},
    "inside.can_text": {
        "en": "- **It can show** the order and length of the named steps per warp, from the SM's own cycle "
              "counter, for every CTA of a real launch; and how two kernels divide their time at the same "
              "configuration.\n"
              "- **A scope is timed from when the warp reaches its start to when it reaches its end**, not from "
              "when the hardware starts or finishes the work. TMA copies and wgmma matrix multiplies are "
              "asynchronous: a multiply issued inside one scope may be waited for in the next one, so a short "
              "P·V bar can mean the wait landed in the following load or Q·Kᵀ scope.\n"
              "- **In a Triton (tl) kernel the compiler may move work across scope boundaries**: software "
              "pipelining and instruction reordering happen after the scopes are placed. Triton therefore only "
              "instruments Gluon kernels by default; the `fast` kernel's scopes were switched on explicitly and "
              "are approximate. Gluon (`ws`) spells out its pipelining by hand, so the compiler has less to move.\n"
              "- **Instrumenting costs time**: every scope adds a clock read and a store. The cost is measured "
              "(the instrumented kernel against the plain one) and the timelines are of the instrumented kernel.\n"
              "- **Cycles, not seconds**: proton counts SM cycles. They become µs with the SM clock nvidia-smi "
              "read during the run; the clock can vary, the cycle counts do not.\n"
              "- **One CTA is drawn** (the one with the median span); the shares average all CTAs. When a CTA's "
              "buffer fills, proton keeps the latest events; the page says when that happened.",
        "zh": "- **能说明的**：每个 warp 上各个具名步骤的先后顺序和长度，来自 SM 自己的周期计数器，覆盖一次真实启动的所有 "
              "CTA；以及两个 kernel 在相同配置下如何分配时间。\n"
              "- **一个 scope 的计时，是从 warp 到达它的起点到到达它的终点**，而不是硬件开始或完成这项工作的时间。TMA 拷贝和 "
              "wgmma 矩阵乘法是异步的：在一个 scope 里发起的乘法，可能在下一个 scope 里才等待它完成；所以 P·V 条很短，可能"
              "意味着等待落在了后面的加载或 Q·Kᵀ scope 里。\n"
              "- **在 Triton（tl）kernel 中，编译器可能把工作移过 scope 的边界**：软件流水和指令重排发生在放置 scope 之后。"
              "因此 Triton 默认只对 Gluon kernel 插桩；`fast` kernel 的 scope 是显式打开的，只是近似。Gluon（`ws`）的流水是"
              "手写的，编译器能移动的东西更少。\n"
              "- **插桩本身有代价**：每个 scope 都多一次读时钟和一次存储。这个代价是测出来的（插桩 kernel 对比普通 kernel），"
              "时间线展示的是插桩后的 kernel。\n"
              "- **单位是周期，不是秒**：proton 计的是 SM 周期；换算成 µs 用的是运行期间 nvidia-smi 读到的 SM 时钟。"
              "时钟可能变化，周期数不会。\n"
              "- **只画一个 CTA**（跨度居中的那个）；比例对所有 CTA 取平均。某个 CTA 的缓冲区写满时，proton 保留最新的事件；"
              "发生这种情况时页面会注明。"},
    "inside.prov_header": {"en": "**How this was measured**", "zh": "**测量方式**"},
    "inside.prov_gpu": {"en": "GPU", "zh": "GPU"},
    "inside.prov_driver": {"en": "Driver", "zh": "驱动"},
    "inside.prov_cuda": {"en": "CUDA", "zh": "CUDA"},
    "inside.prov_torch": {"en": "torch", "zh": "torch"},
    "inside.prov_triton": {"en": "triton", "zh": "triton"},
    "inside.prov_date": {"en": "Date (UTC)", "zh": "日期（UTC）"},
    "inside.prov_commit": {"en": "Commit", "zh": "提交"},
    "inside.prov_clock": {"en": "SM clock", "zh": "SM 时钟"},
    "inside.prov_profiler": {"en": "Profiler", "zh": "分析器"},
    "inside.prov_granularity": {"en": "Granularity", "zh": "粒度"},
    "inside.prov_timer_plain": {"en": "Call timer", "zh": "调用计时"},
    "inside.prov_timer_kernel": {"en": "Kernel timer", "zh": "kernel 计时"},
    "inside.prov_representative": {"en": "CTA drawn", "zh": "所画的 CTA"},
    "inside.prov_semantic": {"en": "Caveat recorded with the data", "zh": "随数据记录的注意事项"},
    "inside.prov_method_zh": {
        "en": "The recording describes its method in English (profiler, timers, the CTA drawn, its caveat); the "
              "English page shows it word for word, and the list above says the same.",
        "zh": "录制文件用英文记下了测量方法（分析器、计时方式、所画的 CTA、注意事项），英文页面逐字显示；其内容与上面"
              "“能说明什么、不能说明什么”一节相同：proton 按 warp 插桩计周期，SM 时钟由 nvidia-smi 读取，每次调用用 "
              "triton.testing.do_bench 的中位数，仅 kernel 用 CUPTI 的中位数，画的是跨度居中的 CTA。"},
    "inside.prov_command": {"en": "Recorded with:", "zh": "录制命令："},
    "inside.unknown": {"en": "unknown", "zh": "未知"},
    "inside.incomplete": {"en": "This recording is incomplete: {why}", "zh": "这次录制不完整：{why}"},
    "inside.incomplete_cut": {"en": "the run ended before its last configuration (the configurations offered are "
                                    "the ones it finished)",
                              "zh": "运行在最后一个配置之前就结束了（可选的是已完成的配置）"},
    "inside.no_recording": {
        "en": "No timeline has been recorded yet. It needs a Hopper GPU (H100/H200) and Triton's proton; from the "
              "repository root run:",
        "zh": "还没有录制时间线。这需要一块 Hopper GPU（H100/H200）和 Triton 的 proton；在仓库根目录运行："},
    "inside.bad_file": {"en": "{name} could not be read: {msg}", "zh": "无法读取 {name}：{msg}"},

    # charts
    "inside.axis_us": {"en": "time from the CTA's first event (µs at {clock} MHz)",
                       "zh": "距该 CTA 第一个事件的时间（µs，按 {clock} MHz）"},
    "inside.axis_kcycles": {"en": "time from the CTA's first event (thousands of SM cycles)",
                            "zh": "距该 CTA 第一个事件的时间（千个 SM 周期）"},
    "inside.axis_share": {"en": "% of the CTA's time", "zh": "占 CTA 时间的 %"},
    "inside.hover_us": {
        "en": "<b>%{fullData.name}</b> · warp %{customdata[0]}<br>start %{customdata[1]:.3f} µs<br>"
              "duration %{customdata[2]:.3f} µs (%{customdata[3]} cycles)",
        "zh": "<b>%{fullData.name}</b> · warp %{customdata[0]}<br>开始 %{customdata[1]:.3f} µs<br>"
              "时长 %{customdata[2]:.3f} µs（%{customdata[3]} 个周期）"},
    "inside.hover_kcycles": {
        "en": "<b>%{fullData.name}</b> · warp %{customdata[0]}<br>start %{customdata[1]:.3f} k cycles<br>"
              "duration %{customdata[3]} cycles",
        "zh": "<b>%{fullData.name}</b> · warp %{customdata[0]}<br>开始 %{customdata[1]:.3f} 千周期<br>"
              "时长 %{customdata[3]} 个周期"},
    "inside.hover_share": {"en": "<b>%{fullData.name}</b><br>%{y}<br>%{x:.1f} % of the CTA's time",
                           "zh": "<b>%{fullData.name}</b><br>%{y}<br>占 CTA 时间的 %{x:.1f} %"},
    "inside.outside": {"en": "outside any scope", "zh": "不在任何 scope 内"},
    "inside.role_producer": {"en": "producer", "zh": "生产者"},
    "inside.role_wg": {"en": "warpgroup {k}", "zh": "warpgroup {k}"},
    "inside.warp_label": {"en": "warp {w} · {role}", "zh": "warp {w} · {role}"},
    "inside.scope_load_k": {"en": "load K", "zh": "加载 K"},
    "inside.scope_qk": {"en": "Q·Kᵀ", "zh": "Q·Kᵀ"},
    "inside.scope_softmax": {"en": "softmax", "zh": "softmax"},
    "inside.scope_load_v_pv": {"en": "load V, P·V", "zh": "加载 V、P·V"},
    "inside.scope_pv": {"en": "P·V", "zh": "P·V"},
    "inside.scope_wait_kv": {"en": "wait for K/V", "zh": "等待 K/V"},
    "inside.scope_wait_turn": {"en": "wait for its turn", "zh": "等待轮到自己"},
    "inside.scope_tma_wait_slot": {"en": "producer: wait for a free K slot", "zh": "生产者：等 K 的空位"},
    "inside.scope_tma_issue": {"en": "producer: start K's copy", "zh": "生产者：发起 K 的拷贝"},
    "inside.scope_tma_wait_slot_v": {"en": "producer: wait for a free V slot", "zh": "生产者：等 V 的空位"},
    "inside.scope_tma_issue_v": {"en": "producer: start V's copy", "zh": "生产者：发起 V 的拷贝"},
    "inside.scope_tma_kv": {"en": "producer: start K's and V's copies", "zh": "生产者：发起 K 和 V 的拷贝"},
    "inside.to_inside": {"en": "Where does the time go inside one CTA of the kernel? See {page}",
                         "zh": "kernel 的一个 CTA 内部，时间花在哪里？见 {page}"},
}
