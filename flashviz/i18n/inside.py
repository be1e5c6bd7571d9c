"""Strings of the page "Inside the kernel" (flashviz/ui/inside.py) and its charts (charts/timeline.py).
Terms: 线程束 (warp), 线程束组 (warpgroup), 线程块 CTA, 生产者/消费者 (producer/consumer), 乒乓调度 (ping-pong),
插桩 (instrumentation), 周期 (cycles)."""

STRINGS = {
    "inside.nav": {"en": "Inside the kernel", "zh": "内核内部"},
    "inside.title": {"en": "Inside the kernel: where one CTA's time goes",
                     "zh": "内核内部：一个 CTA 的时间花在哪里"},
    "inside.intro": {
        "en": "The other pages time a whole kernel call. Here Triton's profiler proton timed named steps *inside* "
              "the kernel: each warp reads the SM's cycle counter when it enters and leaves a scope (load K, Q·Kᵀ, "
              "softmax, P·V). Below: one CTA (one program, a block of 128 query rows) of the FlashAttention-2-style "
              "`fast` kernel as a timeline per warp, the same for the warp-specialised `ws` kernel where it was "
              "recorded, and the share of a CTA's time each step takes, averaged over every CTA of the launch.",
        "zh": "其他页面测的是整次内核调用。这里用 Triton 的分析器 proton 在内核*内部*给各个步骤计时：每个线程束（warp）"
              "进入和离开一个 scope（加载 K、Q·Kᵀ、softmax、P·V）时读取 SM 的周期计数器。下面展示 FlashAttention-2 风格的 "
              "`fast` 内核中一个 CTA（一个 program，负责 128 行 query）里每个线程束的时间线；若录制中有线程束特化的 `ws` "
              "内核，也同样展示；最后是每个步骤占一个 CTA 时间的比例（对本次启动的所有 CTA 取平均）。"},

    # the explanation
    "inside.ws_header": {"en": "What warp specialisation changes", "zh": "线程束特化改变了什么"},
    "inside.ws_text": {
        "en": "In the `fast` kernel every warp of a CTA does everything in turn: wait for the K tile, multiply, "
              "softmax, wait for V, multiply. The copies and the tensor-core work are asynchronous, but the same "
              "warps must start them and then wait, so a warp busy with the softmax's exponentials is not feeding "
              "the tensor cores.\n\n"
              "FlashAttention-3 splits the roles (the `ws` kernel follows it, written in Gluon for Hopper):\n"
              "- a **producer** warp only issues TMA copies of K_j and V_j into a ring of shared-memory stages and "
              "waits until a stage is free again; it hands most of its registers to the consumers;\n"
              "- two **consumer warpgroups** (4 warps each) each own 64 of the block's 128 query rows and run "
              "Q·Kᵀ, the online softmax and P·V on them (at d = 64 the `ws` kernel runs three on 192 rows, as "
              "FlashAttention-3 does there: it measured faster on the H200);\n"
              "- **ping-pong**: the two consumers take turns issuing their matrix multiplies, so while one "
              "warpgroup computes its softmax (exponentials on the ordinary ALUs), the other's matmuls keep the "
              "tensor cores busy.\n\n"
              "Ping-pong, and FlashAttention-3's overlap of one tile's softmax with the previous tile's P·V, are "
              "switches of the `ws` kernel; its defaults keep only what measured faster on the H200 (each timeline "
              "below says which schedule it ran).\n\n"
              "If the schedule works as designed, its timeline shows a producer row of short copy scopes and the "
              "two warpgroups' softmax bars offset from each other rather than aligned; the recording below shows "
              "whether it does.",
        "zh": "在 `fast` 内核里，一个 CTA 的每个线程束依次做所有事情：等 K 的 tile、做乘法、softmax、等 V、再做乘法。拷贝和"
              "张量核心的计算是异步的，但必须由同一批线程束发起再等待；线程束忙于 softmax 的指数运算时，就没有在给张量核心供数。\n\n"
              "FlashAttention-3 把角色拆开（`ws` 内核照此用 Gluon 为 Hopper 编写）：\n"
              "- 一个**生产者**线程束只负责发起 TMA 拷贝，把 K_j、V_j 放进共享内存里的多级环形缓冲区，并等待某一级重新空出；"
              "它把大部分寄存器让给消费者；\n"
              "- 两个**消费者线程束组**（各 4 个线程束）各负责块中 128 行 query 里的 64 行，对它们做 Q·Kᵀ、在线 softmax "
              "和 P·V（d = 64 时 `ws` 内核用三个线程束组处理 192 行，和 FlashAttention-3 在这里的做法一样：在 H200 上测得更快）；\n"
              "- **乒乓调度**：两个消费者轮流发起矩阵乘法，一个线程束组在算 softmax（普通 ALU 上的指数运算）时，另一个的"
              "矩阵乘法让张量核心保持忙碌。\n\n"
              "乒乓调度，以及 FlashAttention-3 把一个 tile 的 softmax 与上一个 tile 的 P·V 重叠的做法，都是 `ws` 内核的开关；"
              "它的默认值只保留在 H200 上测得更快的那些（下面每条时间线都写明了它用的调度）。\n\n"
              "如果调度按设计工作，时间线上会有一行只有短拷贝 scope 的生产者，两个线程束组的 softmax 条彼此错开、而不是对齐；"
              "下面的录制结果显示它是否真的如此。"},
    "inside.scopes_header": {"en": "The scopes", "zh": "各个 scope"},
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
              "`pv` ended with the rescaling by α.",
        "zh": "- `load_k`（fast）：从请求 K_j 这个 tile 到线程束拿到它；编译器的软件流水可能已提前一轮发起了拷贝，所以这段"
              "可能主要是在等待。\n"
              "- `qk`：在张量核心上计算 S = Q·K_jᵀ。\n"
              "- `softmax`：（需要时）加掩码、求行最大值、指数、行求和，并（fast，以及关闭 OVERLAP 的 ws）用 "
              "α = exp(m_old − m_new) 重缩放累积的输出。\n"
              "- `load_v_pv`（fast）：等待 V_j，然后把 P·V 加进累积的输出。\n"
              "- `tma_wait_slot`（ws，生产者）：等所有消费者的 Q·K_jᵀ 用完环形缓冲区某一级里 K 的位置；`tma_issue`：发起 "
              "K_j 的拷贝（拷贝异步完成）；`tma_wait_slot_v` 和 `tma_issue_v`：V_j 的同样两步，V 的位置要等 P·V 算完才空出。\n"
              "- `wait_kv`（ws，消费者）：等 K_j 到达；`wait_turn`：另一个消费者线程束组发出矩阵乘法时在旁等待"
              "（乒乓）；`qk`（ws）：从发出 Q·K_jᵀ 到分数就绪（打开 OVERLAP 开关时，这段时间里会用上一个 tile 的 α "
              "重缩放累积的输出，并发出上一个 tile 的 P·V，让它与本 tile 的 softmax 同时进行）；`pv`（ws）：打开 OVERLAP "
              "时是等那次 P·V 完成；关闭时是等 V_j 到达并算 P·V。\n"
              "- 提交 02c62b8（2026-12-01）之前的记录，环形缓冲区每级只有一个屏障：那里 `wait_kv` 同时等 K_j 和 V_j，"
              "`tma_wait_slot` / `tma_issue` 涵盖两次拷贝，`pv` 最后还包括用 α 重缩放。"},
    "inside.can_header": {"en": "What this measurement can and cannot show", "zh": "这种测量能说明什么、不能说明什么"},
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
        "zh": "- **能说明的**：每个线程束上各个具名步骤的先后顺序和长度，来自 SM 自己的周期计数器，覆盖一次真实启动的所有 "
              "CTA；以及两个内核在相同配置下如何分配时间。\n"
              "- **一个 scope 的计时，是从线程束到达它的起点到到达它的终点**，而不是硬件开始或完成这项工作的时间。TMA 拷贝和 "
              "wgmma 矩阵乘法是异步的：在一个 scope 里发起的乘法，可能在下一个 scope 里才等待它完成；所以 P·V 条很短，可能"
              "意味着等待落在了后面的加载或 Q·Kᵀ scope 里。\n"
              "- **在 Triton（tl）内核中，编译器可能把工作移过 scope 的边界**：软件流水和指令重排发生在放置 scope 之后。"
              "因此 Triton 默认只对 Gluon 内核插桩；`fast` 内核的 scope 是显式打开的，只是近似。Gluon（`ws`）的流水是手写的，"
              "编译器能移动的东西更少。\n"
              "- **插桩本身有代价**：每个 scope 都多一次读时钟和一次存储。这个代价是测出来的（插桩内核对比普通内核），"
              "时间线展示的是插桩后的内核。\n"
              "- **单位是周期，不是秒**：proton 计的是 SM 周期；换算成 µs 用的是运行期间 nvidia-smi 读到的 SM 时钟。"
              "时钟可能变化，周期数不会。\n"
              "- **只画一个 CTA**（跨度居中的那个）；比例对所有 CTA 取平均。某个 CTA 的缓冲区写满时，proton 保留最新的事件；"
              "发生这种情况时页面会注明。"},

    # the recording
    "inside.rec_header": {"en": "The recording", "zh": "录制结果"},
    "inside.no_recording": {
        "en": "No timeline has been recorded yet. It needs a Hopper GPU (H100/H200) and Triton's proton; from the "
              "repository root run:",
        "zh": "还没有录制时间线。这需要一块 Hopper GPU（H100/H200）和 Triton 的 proton；在仓库根目录运行："},
    "inside.bad_file": {"en": "{name} could not be read: {msg}", "zh": "无法读取 {name}：{msg}"},
    "inside.dataset": {"en": "Recording", "zh": "录制文件"},
    "inside.config": {"en": "Configuration", "zh": "配置"},
    "inside.config_fmt": {"en": "N = {n} · d = {d} · {mask} · B = {batch}, H = {heads} · {dtype}",
                          "zh": "N = {n} · d = {d} · {mask} · B = {batch}，H = {heads} · {dtype}"},
    "inside.mask_causal": {"en": "causal", "zh": "因果"},
    "inside.mask_full": {"en": "non-causal", "zh": "非因果"},
    "inside.schedule_recorded": {"en": "ws schedule in this recording: {schedule}.",
                                 "zh": "本次录制中 ws 的调度：{schedule}。"},
    "inside.schedule_unrecorded": {
        "en": "This recording does not say which ws schedule ran (it predates that field). Today's default for "
              "d = {d}, {mask}: {schedule} (the ws kernel's defaults, picked by measurement), which may differ from what ran.",
        "zh": "这份录制没有记下 ws 用的是哪种调度（它早于这个字段）。如今 d = {d}、{mask} 的默认调度是：{schedule}"
              "（ws 内核的默认值，按测量选定），可能与录制时不同。"},
    "inside.consumers_changed": {
        "en": "This recording ran {then} consumer warpgroups ({bm}-row query tiles). At d = {d} the ws kernel now "
              "runs {now} ({bm_now} rows), which measured faster on the H200 after this was recorded; the "
              "timeline shows the layout that ran then.",
        "zh": "这份录制运行的是 {then} 个消费者线程束组（每块 {bm} 行 query）。如今 d = {d} 时 ws 内核运行 {now} 个"
              "（{bm_now} 行），这是录制之后在 H200 上测得更快的配置；时间线展示的是当时运行的布局。"},
    "inside.sched_overlap+pingpong": {"en": "softmax of tile j overlapped with P·V of tile j−1, and ping-pong",
                                      "zh": "tile j 的 softmax 与 tile j−1 的 P·V 重叠，并且乒乓调度"},
    "inside.sched_overlap": {"en": "softmax of tile j overlapped with P·V of tile j−1, no ping-pong",
                             "zh": "tile j 的 softmax 与 tile j−1 的 P·V 重叠，不用乒乓调度"},
    "inside.sched_pingpong": {"en": "ping-pong, no overlap of softmax with P·V",
                              "zh": "乒乓调度，softmax 不与 P·V 重叠"},
    "inside.sched_plain": {"en": "neither overlap nor ping-pong (each consumer runs its 64 rows on its own)",
                           "zh": "既不重叠也不乒乓（每个消费者各自处理自己的 64 行）"},
    "inside.mask_causal": {"en": "causal", "zh": "因果"},
    "inside.mask_none": {"en": "no mask", "zh": "无掩码"},
    "inside.impl_header": {
        "en": "`{impl}` · kernel `{kernel}` · tiles {bm} × {bn} · {stages} stages · {warps} warps recorded",
        "zh": "`{impl}` · 内核 `{kernel}` · tile {bm} × {bn} · {stages} 级流水 · 记录到 {warps} 个线程束"},
    "inside.m_plain": {"en": "Call, plain (ms)", "zh": "整次调用，未插桩（ms）"},
    "inside.m_plain_help": {"en": "triton.testing.do_bench, median, without instrumentation.",
                            "zh": "triton.testing.do_bench 的中位数，未插桩。"},
    "inside.m_kernel": {"en": "Kernel alone (ms)", "zh": "仅内核（ms）"},
    "inside.m_instr": {"en": "Kernel, instrumented (ms)", "zh": "插桩后的内核（ms）"},
    "inside.m_kernel_help": {"en": "GPU time of the kernel alone (CUPTI), median of {reps} launches.",
                             "zh": "仅内核的 GPU 时间（CUPTI），{reps} 次启动的中位数。"},
    "inside.m_overhead": {"en": "Instrumentation cost", "zh": "插桩代价"},
    "inside.m_overhead_help": {"en": "Instrumented kernel time / plain kernel time (same timer).",
                               "zh": "插桩内核时间 / 普通内核时间（同一计时方法）。"},
    "inside.m_events": {"en": "Events (CTAs)", "zh": "事件数（CTA 数）"},
    "inside.not_measured": {"en": "not measured", "zh": "未测"},
    "inside.cta_caption": {
        "en": "Drawn: CTA {id} (on SM {core}), the one with the median span, number {rank} of {ctas} ordered by "
              "span: {span} from its first to its last recorded event. All CTAs: {lo} to {hi}.",
        "zh": "图中是 CTA {id}（在 SM {core} 上），即跨度居中的那个：按跨度排序在 {ctas} 个中排第 {rank}，从第一个到"
              "最后一个记录事件共 {span}。所有 CTA：{lo} 到 {hi}。"},
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
        "zh": "记录到 {kept} 个事件，按循环次数预计 {expected} 个（每个线程束在每个 key tile 上进入自己的每个 scope 一次）："
              "这个内核的 scope 不符合这个模式，因此无法判断是否丢弃了事件。"},
    "inside.buffer_global": {"en": "global-memory", "zh": "全局内存"},
    "inside.buffer_shared": {"en": "shared-memory", "zh": "共享内存"},
    "inside.gantt_title": {"en": "{impl}: one CTA, one row per warp", "zh": "{impl}：一个 CTA，每个线程束一行"},
    "inside.shares_title": {"en": "Share of a CTA's time inside each scope (mean over all CTAs)",
                            "zh": "每个 scope 占 CTA 时间的比例（所有 CTA 的平均）"},
    "inside.axis_us": {"en": "time from the CTA's first event (µs at {clock} MHz)",
                       "zh": "距该 CTA 第一个事件的时间（µs，按 {clock} MHz）"},
    "inside.axis_kcycles": {"en": "time from the CTA's first event (thousands of SM cycles)",
                            "zh": "距该 CTA 第一个事件的时间（千个 SM 周期）"},
    "inside.axis_share": {"en": "% of the CTA's time", "zh": "占 CTA 时间的 %"},
    "inside.hover_us": {
        "en": "<b>%{fullData.name}</b> · warp %{customdata[0]}<br>start %{customdata[1]:.3f} µs<br>"
              "duration %{customdata[2]:.3f} µs (%{customdata[3]} cycles)",
        "zh": "<b>%{fullData.name}</b> · 线程束 %{customdata[0]}<br>开始 %{customdata[1]:.3f} µs<br>"
              "时长 %{customdata[2]:.3f} µs（%{customdata[3]} 个周期）"},
    "inside.hover_kcycles": {
        "en": "<b>%{fullData.name}</b> · warp %{customdata[0]}<br>start %{customdata[1]:.3f} k cycles<br>"
              "duration %{customdata[3]} cycles",
        "zh": "<b>%{fullData.name}</b> · 线程束 %{customdata[0]}<br>开始 %{customdata[1]:.3f} 千周期<br>"
              "时长 %{customdata[3]} 个周期"},
    "inside.hover_share": {"en": "<b>%{fullData.name}</b><br>%{y}<br>%{x:.1f} % of the CTA's time",
                           "zh": "<b>%{fullData.name}</b><br>%{y}<br>占 CTA 时间的 %{x:.1f} %"},
    "inside.outside": {"en": "outside any scope", "zh": "不在任何 scope 内"},
    "inside.role_producer": {"en": "producer", "zh": "生产者"},
    "inside.role_wg": {"en": "warpgroup {k}", "zh": "线程束组 {k}"},
    "inside.warp_label": {"en": "warp {w} · {role}", "zh": "线程束 {w} · {role}"},
    "inside.largest": {
        "en": "**{impl}**, {role}: the largest share is `{scope}` with {pct} % of the CTA's time; {outside} % is "
              "outside every scope (loop control, prologue and epilogue, the gaps between scopes).",
        "zh": "**{impl}**，{role}：占比最大的是 `{scope}`，占 CTA 时间的 {pct} %；{outside} % 不在任何 scope 内"
              "（循环控制、序言与收尾、scope 之间的间隙）。"},
    "inside.not_ok": {"en": "`{impl}` at this configuration: {status}. {msg}", "zh": "`{impl}` 在这个配置下：{status}。{msg}"},
    "inside.status_error": {"en": "not recorded (error)", "zh": "未录到（出错）"},
    "inside.status_no_scopes": {"en": "the kernel has no proton scopes yet", "zh": "该内核还没有 proton scope"},
    "inside.ws_missing": {
        "en": "The warp-specialised `ws` kernel is not in this recording. The measurement includes it by itself "
              "once its Gluon kernel carries proton scopes and the recording is run again where it is active.",
        "zh": "这次录制中没有线程束特化的 `ws` 内核。一旦它的 Gluon 内核带上 proton scope，并在它可用的机器上重新录制，"
              "测量会自动把它包括进来。"},
    "inside.col_impl": {"en": "kernel", "zh": "内核"},
    "inside.col_role": {"en": "warps", "zh": "线程束"},
    "inside.col_scope": {"en": "scope", "zh": "scope"},
    "inside.col_share": {"en": "share of CTA time (%)", "zh": "占 CTA 时间（%）"},
    "inside.col_cycles": {"en": "cycles per occurrence (mean)", "zh": "每次的周期数（平均）"},
    "inside.col_count": {"en": "occurrences", "zh": "次数"},
    "inside.prov_header": {"en": "**How this was measured**", "zh": "**测量方式**"},
    "inside.prov_gpu": {"en": "GPU", "zh": "GPU"},
    "inside.prov_driver": {"en": "Driver", "zh": "驱动"},
    "inside.prov_cuda": {"en": "CUDA", "zh": "CUDA"},
    "inside.prov_torch": {"en": "torch", "zh": "torch"},
    "inside.prov_triton": {"en": "triton", "zh": "triton"},
    "inside.prov_date": {"en": "Date (UTC)", "zh": "日期（UTC）"},
    "inside.prov_commit": {"en": "Commit", "zh": "提交"},
    "inside.prov_profiler": {"en": "Profiler", "zh": "分析器"},
    "inside.prov_granularity": {"en": "Granularity", "zh": "粒度"},
    "inside.prov_clock": {"en": "SM clock", "zh": "SM 时钟"},
    "inside.prov_timer_plain": {"en": "Call timer", "zh": "调用计时"},
    "inside.prov_timer_kernel": {"en": "Kernel timer", "zh": "内核计时"},
    "inside.prov_representative": {"en": "CTA drawn", "zh": "所画的 CTA"},
    "inside.prov_semantic": {"en": "Caveat recorded with the data", "zh": "随数据记录的注意事项"},
    "inside.prov_command": {"en": "Recorded with:", "zh": "录制命令："},
    "inside.incomplete": {"en": "This recording is incomplete: {why}", "zh": "这次录制不完整：{why}"},
    "inside.incomplete_cut": {"en": "the run ended before its last configuration (the configurations below are "
                                    "the ones it finished)",
                              "zh": "运行在最后一个配置之前就结束了（下面是已完成的配置）"},
    "inside.to_inside": {"en": "Where does the time go inside one CTA of the kernel? See {page}",
                         "zh": "内核的一个 CTA 内部，时间花在哪里？见 {page}"},
}
