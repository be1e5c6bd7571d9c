"""Strings of the page "Ring attention" (flashviz/ui/ring.py) and its charts (charts/ring.py, ring_measured.py).
Terms: 环形注意力 (ring attention), 分片 (shard), 之字形 (zigzag), 重叠 (overlap), 在线 softmax 的合并 (the merge)."""

STRINGS = {
    "ring.nav": {"en": "Ring attention", "zh": "环形注意力"},
    "ring.title": {"en": "Ring attention: K and V travel, queries stay", "zh": "环形注意力：K、V 绕环传递，query 留在原地"},
    "ring.intro": {
        "en": "Ring attention cuts one long sequence into W shards, one per GPU: each GPU keeps its queries and, at "
              "every step, computes them against the K/V block it holds while passing that block on to the next "
              "GPU, folding the result into each row's (m, ℓ, o) with flash-decoding's merge. After W steps every "
              "query has met every key; under a causal mask, giving each GPU one early and one late chunk (zigzag) "
              "keeps all of them busy.",
        "zh": "环形注意力把一条长序列切成 W 个分片，每块 GPU 一片：每块 GPU 留着自己的 query，每一步都用它们计算手上"
              "这块 K/V，同时把这块 K/V 传给下一块 GPU，并用 flash-decoding 的合并规则把结果并入每行的 (m, ℓ, o)。"
              "W 步之后每个 query 都见过了所有 key；加上因果掩码时，让每块 GPU 拿一早一晚两段（之字形）能让所有 GPU "
              "都不闲着。"},
    "ring.takeaway_zigzag": {
        "en": "After {w} steps every GPU's rows equal one pass over all {n} keys (max difference {diff}). Causal "
              "and zigzag: {idle_z} of the {slots} GPU-steps are idle; cut contiguously, {idle_c} would be, and the "
              "ring would take {crit_c}× the ideal time instead of {crit_z}×.",
        "zh": "{w} 步之后，每块 GPU 的行都与一次遍历全部 {n} 个 key 的结果相同（最大差 {diff}）。因果加之字形：{slots} 个"
              "（GPU，步）中有 {idle_z} 个空闲；若连续切分，会有 {idle_c} 个空闲，整个环的用时是理想值的 {crit_c} 倍，"
              "而不是 {crit_z} 倍。"},
    "ring.takeaway_contiguous": {
        "en": "After {w} steps every GPU's rows equal one pass over all {n} keys (max difference {diff}). Causal "
              "and contiguous: {idle_c} of the {slots} GPU-steps are idle and the ring takes {crit_c}× the ideal "
              "time; zigzag would leave {idle_z} idle ({crit_z}×).",
        "zh": "{w} 步之后，每块 GPU 的行都与一次遍历全部 {n} 个 key 的结果相同（最大差 {diff}）。因果加连续切分："
              "{slots} 个（GPU，步）中有 {idle_c} 个空闲，整个环的用时是理想值的 {crit_c} 倍；之字形只有 {idle_z} 个"
              "空闲（{crit_z} 倍）。"},
    "ring.takeaway_full": {
        "en": "After {w} steps every GPU's rows equal one pass over all {n} keys (max difference {diff}). Without "
              "a mask every GPU computes a whole block at every step; turn the causal mask on to see who waits.",
        "zh": "{w} 步之后，每块 GPU 的行都与一次遍历全部 {n} 个 key 的结果相同（最大差 {diff}）。不加掩码时，每块 GPU "
              "每一步都算一整块；打开因果掩码，看看谁在等待。"},
    "ring.fix_input": {"en": "Correct the value and the page comes back.", "zh": "改正这个值，页面就会恢复。"},

    # section 1
    "ring.row_header": {"en": "For students: follow one query row's m and ℓ around the ring",
                        "zh": "给学生：跟着一个 query 行的 m 和 ℓ 绕环一周"},
    "ring.world": {"en": "GPUs W", "zh": "GPU 数 W"},
    "ring.world_help": {"en": "Virtual devices in the ring (1 to 8). W = 1 is plain attention on one GPU.",
                        "zh": "环上的虚拟设备数（1 到 8）。W = 1 就是单 GPU 上的普通注意力。"},
    "ring.layout": {"en": "Layout", "zh": "切分方式"},
    "ring.layout_help": {
        "en": "Contiguous: W chunks, GPU r owns chunk r. Zigzag: 2W chunks, GPU r owns chunks r and 2W−1−r.",
        "zh": "连续切分：切成 W 段，GPU r 拿第 r 段。之字形：切成 2W 段，GPU r 拿第 r 段和第 2W−1−r 段。"},
    "ring.layout_contiguous": {"en": "contiguous", "zh": "连续切分"},
    "ring.layout_zigzag": {"en": "zigzag", "zh": "之字形"},
    "ring.causal": {"en": "Causal", "zh": "因果"},
    "ring.causal_help": {"en": "A query sees only keys at or before its own position.",
                         "zh": "每个 query 只能看到位置不晚于自己的 key。"},
    "ring.chunk": {"en": "Tokens per chunk", "zh": "每段 token 数"},
    "ring.chunk_help": {"en": "1 to 16. N = chunk × W (contiguous) or chunk × 2W (zigzag).",
                        "zh": "1 到 16。N = 段长 × W（连续切分），或 N = 段长 × 2W（之字形）。"},
    "ring.row": {"en": "Tracked query row (local)", "zh": "跟踪的 query 行（本地编号）"},
    "ring.row_help": {"en": "Every GPU follows its own row with this local index.",
                      "zh": "每块 GPU 跟踪自己分片里这个本地编号的行。"},
    "ring.row_single": {"en": "Each GPU owns one row.", "zh": "每块 GPU 只有一行。"},
    "ring.describe": {
        "en": "N = {n} tokens in chunks of {c} · W = {w} · each GPU owns {per} query rows (and their keys and "
              "values) · d = {d}, q, K, V from seed {seed}, rounded to {dtype}.",
        "zh": "N = {n} 个 token，每段 {c} 个 · W = {w} · 每块 GPU 拥有 {per} 个 query 行（及对应的 key 和 value）· "
              "d = {d}，q、K、V 由种子 {seed} 生成并舍入到 {dtype}。"},
    "ring.step_text": {
        "en": "**Step {s} of {w}** · GPU r holds the K/V block of GPU (r − {s0}) mod {w} · busy: {busy}, idle: {idle}",
        "zh": "**第 {s} / {w} 步** · GPU r 手上是 GPU (r − {s0}) mod {w} 的 K/V 块 · 在算：{busy} 块，空闲：{idle} 块"},
    "ring.state_explain": {
        "en": "Each GPU follows one of its own query rows (the same local row on every GPU, outlined in the matrix). "
              "After each step its running maximum m and sum ℓ include the block it just saw; a block wholly in the "
              "row's future (causal) leaves them unchanged. The diamonds are one pass over all keys.",
        "zh": "每块 GPU 跟踪自己的一个 query 行（各 GPU 的本地编号相同，矩阵里用框标出）。每一步之后，它的滚动最大值 m "
              "和滚动求和 ℓ 就包含了刚看过的那一块；整块都在该行“未来”的块（因果）不改变它们。菱形是对所有 key 一次算完的结果。"},
    "ring.col_device": {"en": "GPU", "zh": "GPU"},
    "ring.col_row": {"en": "tracked row (global)", "zh": "跟踪的行（全局位置）"},
    "ring.col_block": {"en": "K/V block held", "zh": "手上的 K/V 块"},
    "ring.col_seen": {"en": "keys seen in it", "zh": "其中可见的 key 数"},
    "ring.differ": {"en": "The merged rows differ from one pass (max difference {diff}).",
                    "zh": "合并后的行与一次遍历的结果不一致（最大差 {diff}）。"},

    # section 2
    "ring.balance_header": {"en": "For students: under a causal mask, who works when (contiguous against zigzag)",
                            "zh": "给学生：因果掩码下谁在什么时候干活（连续切分与之字形对比）"},
    "ring.balance_text": {
        "en": "With a causal mask a key chunk later than a query chunk is skipped. **Contiguous** (GPU r owns chunk "
              "r): {idle} of {slots} (GPU, step) slots are idle, the busiest GPU does {busy}× the work of the least "
              "busy, and a ring whose steps wait for their busiest GPU takes {crit}× the ideal (total work / W). "
              "**Zigzag** (GPU r owns chunks r and 2W−1−r, one early and one late): {idle_z} idle slots, {crit_z}× "
              "the ideal. (W = {w}, N = {n}; work = visible (query, key) pairs.)",
        "zh": "加上因果掩码后，晚于 query 段的 key 段会被跳过。**连续切分**（GPU r 拿第 r 段）：{slots} 个（GPU，步）"
              "中有 {idle} 个空闲，最忙的 GPU 的工作量是最闲的 {busy} 倍；若每一步都要等最忙的 GPU，整个环的用时是理想值"
              "（总工作量 / W）的 {crit} 倍。**之字形**（GPU r 拿第 r 段和第 2W−1−r 段，一早一晚）：{idle_z} 个空闲，"
              "为理想值的 {crit_z} 倍。（W = {w}，N = {n}；工作量 = 可见的 (query, key) 对数。）"},

    # section 3
    "ring.tl_header": {"en": "For systems engineers: compute and transfers at full size, a cost model",
                       "zh": "给系统工程师：全尺寸下的计算与传输（成本模型）"},
    "ring.tl_intro": {
        "en": "The same ring at the size of the recording. Per step, a GPU's compute is its visible pairs × 4·d·B·H "
              "FLOP divided by its attention throughput, plus merging the block's result (HBM traffic); one transfer "
              "is one shard's K and V over the link. A GPU starts the next step when its compute is done and the "
              "next block has arrived; with overlap the transfer runs during the compute. The parameters and where "
              "they come from are listed under the chart.",
        "zh": "同一个环，放大到实测的尺寸。每一步，一块 GPU 的计算时间 = 可见对数 × 4·d·B·H FLOP ÷ 注意力吞吐，"
              "再加上合并这一块结果的 HBM 访存；一次传输 = 一个分片的 K 和 V 经过互联链路。GPU 在本步计算完成且下一块"
              "已到达后开始下一步；开启重叠时，传输与计算同时进行。参数及其来源列在图下方。"},
    "ring.tl_n": {"en": "Sequence length N", "zh": "序列长度 N"},
    "ring.tl_overlap": {"en": "Overlap transfers", "zh": "传输与计算重叠"},
    "ring.tl_overlap_help": {"en": "Off: a block is sent only after both GPUs finished computing.",
                             "zh": "关闭：两块 GPU 都算完之后才开始传输。"},
    "ring.tl_total": {"en": "Ring (model)", "zh": "环（模型）"},
    "ring.tl_compute_only": {"en": "Compute only", "zh": "只算不传"},
    "ring.tl_comm_only": {"en": "Transfers only", "zh": "只传不算"},
    "ring.tl_exposed": {"en": "Exposed (ring − compute only)", "zh": "暴露的时间（环 − 只算不传）"},
    "ring.tl_exposed_help": {
        "en": "How much longer the ring takes than the same loop without transfers: the part of the transfer time "
              "the compute does not hide.",
        "zh": "环比不传输的同一循环多用的时间：传输时间中没有被计算掩盖的部分。"},
    "ring.tl_shares": {
        "en": "In the model the transfers alone take {share} % of the compute-only time and {exposed} ms of them "
              "stay exposed, so {hidden} % of the transfer time is hidden. The model has no timing noise, so this "
              "share is exact here; measured on GPUs it is not, as the recording below explains when there is one.",
        "zh": "在模型中，只传不算的时间是只算不传的 {share} %，其中 {exposed} ms 仍然暴露在外，即传输时间的 {hidden} % "
              "被掩盖。模型没有计时噪声，所以这个比例在这里是精确的；在 GPU 上实测时则不然，有实测记录时下文会解释原因。"},
    "ring.tl_shares_none": {"en": "With one GPU nothing is transferred.", "zh": "只有一块 GPU 时没有任何传输。"},
    "ring.tl_title_cfg": {"en": "Timeline: W = {w}, N = {n}, {layout}, {mask}, B = {batch}, H = {heads}, d = {d}, {dtype}",
                          "zh": "时间线：W = {w}，N = {n}，{layout}，{mask}，B = {batch}，H = {heads}，d = {d}，{dtype}"},
    "ring.mask_causal": {"en": "causal", "zh": "因果"},
    "ring.mask_full": {"en": "no mask", "zh": "无掩码"},
    "ring.src_compute_assumed": {
        "en": "Compute: {v} TFLOP/s per GPU. Assumed: about the fast kernel's recorded forward on one H200 (fp16, d = 128).",
        "zh": "计算：每块 GPU {v} TFLOP/s。假设值：约等于 fast kernel 在单块 H200 上实测的前向吞吐（fp16，d = 128）。"},
    "ring.src_compute_ring": {
        "en": "Compute: {v} TFLOP/s per GPU. Recorded: the single-GPU forward at N = {n} in the ring recording.",
        "zh": "计算：每块 GPU {v} TFLOP/s。实测：环形注意力记录中 N = {n} 的单 GPU 前向。"},
    "ring.src_compute_speed": {
        "en": "Compute: {v} TFLOP/s per GPU. Recorded: the {impl} kernel's forward at N = {n}, d = {d} in the speed "
              "recording.",
        "zh": "计算：每块 GPU {v} TFLOP/s。实测：速度记录中 {impl} kernel 在 N = {n}、d = {d} 时的前向。"},
    "ring.src_link_assumed": {
        "en": "Link: {v} GB/s each way. Assumed: NVLink 4 on the H200 SXM, 900 GB/s per GPU counting both directions "
              "(NVIDIA H200 datasheet).",
        "zh": "链路：单向 {v} GB/s。假设值：H200 SXM 的 NVLink 4，双向合计每块 GPU 900 GB/s（NVIDIA H200 数据手册）。"},
    "ring.src_link_ring": {
        "en": "Link: {v} GB/s each way. Recorded: the transfers alone at N = {n} on {w} GPUs (K and V bytes per step "
              "/ time per step).",
        "zh": "链路：单向 {v} GB/s。实测：N = {n}、{w} 块 GPU 时只传不算的耗时（每步 K 和 V 的字节数 / 每步时间）。"},
    "ring.src_hbm_assumed": {
        "en": "HBM: {v} TB/s. Assumed: a device-to-device copy measured on the H200 (datasheet: 4.8 TB/s).",
        "zh": "HBM：{v} TB/s。假设值：在 H200 上实测的显存到显存拷贝带宽（数据手册：4.8 TB/s）。"},

    # section 4
    "ring.rec_header": {"en": "For systems engineers: measured on two H200 GPUs", "zh": "给系统工程师：两块 H200 GPU 上的实测"},
    "ring.no_recording": {
        "en": "No recording yet: the benchmark has not been run on two GPUs for this app. The command below, on a "
              "machine with two GPUs, writes one; once the app ships it, it appears here "
              "with its provenance.",
        "zh": "还没有实测记录：本应用尚未在两块 GPU 上运行过基准测试。在有两块 GPU 的机器上运行下面的命令即可生成一份；"
              "应用收录这份记录后，它会连同来源信息显示在这里。"},
    "ring.bad_file": {"en": "The recording {name} cannot be read: {msg}", "zh": "无法读取记录 {name}：{msg}"},
    "ring.dataset": {"en": "Recording", "zh": "记录"},
    "ring.pass": {"en": "Pass", "zh": "计算过程"},
    "ring.pass_fwd": {"en": "forward", "zh": "前向"},
    "ring.pass_fwd+bwd": {"en": "forward + backward", "zh": "前向 + 反向"},
    "ring.rec_summary": {"en": "{what}: **{s}×** the speed of one GPU at N = {n} (ideal {w}×).",
                         "zh": "{what}：N = {n} 时速度是单 GPU 的 **{s} 倍**（理想值 {w} 倍）。"},
    "ring.overlap_note": {
        "en": "Transfers next to compute. In this recording ({pass_}, {mask}) the transfers alone take {c_lo}–{c_hi} % "
              "of the compute-only time, and the ring's time varies by {n_lo}–{n_hi} % of its median between its "
              "20th and 80th percentile runs (median spread {n_med} %). The share of the transfer hidden under "
              "compute, 1 − (t − t_compute) / t_comm, divides the exposed time t − t_compute by the small t_comm: "
              "when the transfer is a few % of compute, that share cannot be measured better than the timing noise "
              "(for the cells below it comes out between {h_lo} and {h_hi}; a real share lies in 0–1). So the page shows the times it is made "
              "of instead: the transfers alone, and the exposed time with its p20–p80 range. An exposed time below "
              "zero means the ring ran faster than the compute-only loop, which is within the noise.",
        "zh": "传输与计算并排看。本记录（{pass_}，{mask}）中，只传不算的时间是只算不传的 {c_lo}–{c_hi} %；环自身的用时在"
              "第 20 与第 80 百分位的运行之间相差其中位数的 {n_lo}–{n_hi} %（中位相差 {n_med} %）。被计算掩盖的传输比例 "
              "1 − (t − t_compute) / t_comm 要用很小的 t_comm 去除暴露时间 t − t_compute：当传输只有计算的百分之几时，"
              "这个比例的测量精度不会好于计时噪声（下表各格算出的值在 {h_lo} 到 {h_hi} 之间；真实的比例应在 0–1 之内）。所以本页改为显示"
              "构成它的两个时间：只传不算的时间，以及暴露时间及其 p20–p80 范围。暴露时间小于零表示环比只算不传的循环"
              "还快，这在噪声范围之内。"},
    "ring.overlap_none": {"en": "This recording has no compute-only and transfer-only timings for this pass and mask.",
                          "zh": "本记录中这一计算过程和掩码没有只算不传、只传不算的计时。"},
    "ring.col_n": {"en": "N", "zh": "N"},
    "ring.col_layout": {"en": "GPUs, layout", "zh": "GPU 数，切分方式"},
    "ring.col_chunks": {"en": "forward sub-chunks S (1: plain ring)", "zh": "前向子块数 S（1：普通环）"},
    "ring.chunked_cells": {
        "en": "In this recording the forward ran chunked, memory-bounded, where a K/V block was large ({cells}): it "
              "holds less memory per GPU (see the memory note below) and moves each block S times, so these "
              "cells can be slower than the plain ring, the default, which sends each block once (on two H200s at "
              "N = 512k the plain ring was faster in every cell).",
        "zh": "这份记录中，K/V 块较大的地方前向以分块、限制显存的方式运行（{cells}）：每块 GPU 占用的显存更少（见下方显存"
              "说明），但每个块要在链路上走 S 次，所以这些格子可能比默认的普通环（每个块只发一次）慢（在两块 H200 上 N = 512k 时，"
              "普通环在每个格子里都更快）。"},
    "ring.col_ms1": {"en": "1 GPU (ms)", "zh": "1 块 GPU（ms）"},
    "ring.col_ms": {"en": "ring (ms)", "zh": "环（ms）"},
    "ring.col_speedup": {"en": "speed-up", "zh": "加速比"},
    "ring.col_compute": {"en": "compute only (ms)", "zh": "只算不传（ms）"},
    "ring.col_comm": {"en": "transfers alone (ms)", "zh": "只传不算（ms）"},
    "ring.col_exposed": {"en": "exposed: ring − compute (ms)", "zh": "暴露：环 − 只算不传（ms）"},
    "ring.col_comm_pct": {"en": "transfers / compute", "zh": "传输 / 计算"},
    "ring.col_exposed_pct": {"en": "exposed / compute", "zh": "暴露 / 计算"},
    "ring.col_spread": {"en": "ring p20–p80 spread", "zh": "环 p20–p80 差"},
    "ring.not_measured": {"en": "Not measured in this recording: {cells}.", "zh": "本记录中未测量：{cells}。"},
    "ring.prov_header": {"en": "**Where these numbers come from**", "zh": "**这些数字从哪里来**"},
    "ring.prov_gpus": {"en": "GPUs", "zh": "GPU"},
    "ring.prov_backend": {"en": "Backend", "zh": "通信后端"},
    "ring.prov_nccl": {"en": "NCCL", "zh": "NCCL"},
    "ring.prov_world": {"en": "World size", "zh": "进程数"},
    "ring.prov_driver": {"en": "Driver", "zh": "驱动"},
    "ring.prov_cuda": {"en": "CUDA", "zh": "CUDA"},
    "ring.prov_torch": {"en": "torch", "zh": "torch"},
    "ring.prov_triton": {"en": "triton", "zh": "triton"},
    "ring.prov_date": {"en": "Date (UTC)", "zh": "日期（UTC）"},
    "ring.prov_commit": {"en": "Commit", "zh": "提交"},
    "ring.prov_timer": {"en": "Timer", "zh": "计时方式"},
    "ring.prov_shape": {"en": "Shape", "zh": "形状"},
    "ring.prov_timer_events": {"en": "CUDA events per repetition, barrier before each, slowest rank, median",
                               "zh": "每次重复用 CUDA 事件计时，开始前先同步所有进程，取最慢的进程，报告中位数"},
    "ring.prov_command": {"en": "Re-run with:", "zh": "复现命令："},
    "ring.chk_world": {"en": "GPUs", "zh": "GPU 数"},
    "ring.chk_ring": {"en": "ring: max error vs float64", "zh": "环：相对 float64 的最大误差"},
    "ring.chk_single": {"en": "one GPU: max error vs float64", "zh": "单 GPU：相对 float64 的最大误差"},
    "ring.chk_ok": {"en": "within 2× + eps", "zh": "在 2 倍 + eps 以内"},

    # charts
    "ring.ring_title": {"en": "The ring at step {s} of {w}", "zh": "第 {s} / {w} 步时的环"},
    "ring.device_label": {"en": "GPU {r} · Q: {q}<br>holds K/V of GPU {src} ({k})<br>{work}",
                          "zh": "GPU {r} · Q：{q}<br>手上是 GPU {src} 的 K/V（{k}）<br>{work}"},
    "ring.idle": {"en": "idle", "zh": "空闲"},
    "ring.busy": {"en": "computing", "zh": "在计算"},
    "ring.pairs": {"en": "{n} pairs", "zh": "{n} 对"},
    "ring.sending": {"en": "K/V of GPU {src}", "zh": "GPU {src} 的 K/V"},
    "ring.in_flight": {"en": "block passed on (overlaps the compute)", "zh": "传给下一块的 K/V（与计算重叠）"},
    "ring.matrix_title": {"en": "Scores S by global position, step {s} of {w}", "zh": "按全局位置排列的分数 S，第 {s} / {w} 步"},
    "ring.cell_current": {"en": "computed at this step", "zh": "本步计算"},
    "ring.cell_done": {"en": "computed earlier", "zh": "之前已算"},
    "ring.cell_pending": {"en": "later", "zh": "之后再算"},
    "ring.cell_masked": {"en": "masked (never computed)", "zh": "被掩码（从不计算）"},
    "ring.tracked_rows": {"en": "tracked rows", "zh": "跟踪的行"},
    "ring.hover_cell": {"en": "query %{y} · key %{x}<br>%{customdata}", "zh": "query %{y} · key %{x}<br>%{customdata}"},
    "ring.hover_owner": {"en": "query %{y} lives on GPU %{z}", "zh": "query %{y} 在 GPU %{z} 上"},
    "ring.axis_key": {"en": "key position", "zh": "key 位置"},
    "ring.axis_query": {"en": "query position (left strip: its GPU)", "zh": "query 位置（左侧色条：所在 GPU）"},
    "ring.state_title": {"en": "Running m and ℓ of each GPU's tracked row, after step {s} of {w}",
                         "zh": "各 GPU 跟踪行的滚动最大值 m 与滚动求和 ℓ，第 {s} / {w} 步之后"},
    "ring.state_m": {"en": "m (running max)", "zh": "m（滚动最大值）"},
    "ring.state_l": {"en": "ℓ (running sum)", "zh": "ℓ（滚动求和）"},
    "ring.state_row": {"en": "GPU {r}, row {i}", "zh": "GPU {r}，第 {i} 行"},
    "ring.hover_state": {"en": "after step %{x}: %{y:.4g}", "zh": "第 %{x} 步之后：%{y:.4g}"},
    "ring.hover_single": {"en": "one pass over all keys: %{y:.4g}", "zh": "一次遍历全部 key：%{y:.4g}"},
    "ring.axis_step": {"en": "step", "zh": "步"},
    "ring.work_title": {"en": "Visible (query, key) pairs per GPU and step, causal",
                        "zh": "每块 GPU 每一步的可见 (query, key) 对数（因果）"},
    "ring.work_panel": {"en": "{layout}: {idle} idle, {ratio}× ideal", "zh": "{layout}：{idle} 个空闲，理想值的 {ratio} 倍"},
    "ring.hover_work": {"en": "%{x}, step %{y}: %{z:,} pairs", "zh": "%{x}，第 %{y} 步：%{z:,} 对"},
    "ring.tl_title": {"en": "Timeline (cost model)", "zh": "时间线（成本模型）"},
    "ring.tl_compute": {"en": "compute (label: step)", "zh": "计算（标注：步）"},
    "ring.tl_transfer": {"en": "K/V arriving", "zh": "K/V 到达中"},
    "ring.hover_tl": {"en": "%{y}: %{x:.3g} ms", "zh": "%{y}：%{x:.3g} ms"},
    "ring.tl_end": {"en": "done at {ms} ms", "zh": "{ms} ms 完成"},
    "ring.axis_ms": {"en": "time (ms)", "zh": "时间（ms）"},
    "ring.axis_n": {"en": "sequence length N", "zh": "序列长度 N"},
    "ring.axis_speedup": {"en": "speed-up over one GPU", "zh": "相对单 GPU 的加速比"},
    "ring.axis_gib": {"en": "peak memory per GPU (GiB)", "zh": "每块 GPU 的峰值显存（GiB）"},
    "ring.m_single": {"en": "1 GPU", "zh": "1 块 GPU"},
    "ring.m_multi": {"en": "{w} GPUs, {layout}", "zh": "{w} 块 GPU，{layout}"},
    "ring.m_ideal": {"en": "ideal {w}×", "zh": "理想 {w} 倍"},
    "ring.m_inputs": {"en": "inputs of one GPU ({w} GPU(s))", "zh": "单块 GPU 的输入（{w} 块 GPU 时）"},
    "ring.m_time_title": {"en": "Time vs N (median)", "zh": "时间随 N 的变化（中位数）"},
    "ring.m_speedup_title": {"en": "Speed-up over one GPU", "zh": "相对单 GPU 的加速比"},
    "ring.m_overlap_title": {"en": "Transfers alone and exposed time, as % of compute",
                             "zh": "只传不算与暴露时间，占计算时间的 %"},
    "ring.axis_pct_compute": {"en": "% of the compute-only time", "zh": "占只算不传时间的 %"},
    "ring.m_comm_series": {"en": "{what}: transfers alone", "zh": "{what}：只传不算"},
    "ring.m_exposed_series": {"en": "{what}: exposed (p20–p80)", "zh": "{what}：暴露（p20–p80）"},
    "ring.m_memory_title": {"en": "Peak memory per GPU", "zh": "每块 GPU 的峰值显存"},
    "ring.axis_pct_compute_direct": {"en": "% of compute (ring time − waits)", "zh": "占计算时间的 %（环用时 − 等待）"},
    "ring.m_exposed_series_direct": {"en": "{what}: waits for transfers (timed)", "zh": "{what}：等待传输（实测）"},
    "ring.hover_comm_direct": {"en": "N = %{x:,}: transfers alone %{customdata[2]:.4g} ms = %{y:.2f} % of compute "
                                     "(%{customdata[1]:.4g} ms)",
                               "zh": "N = %{x:,}：只传不算 %{customdata[2]:.4g} ms，是计算时间（%{customdata[1]:.4g} ms）的 "
                                     "%{y:.2f} %"},
    "ring.hover_exposed_direct": {"en": "N = %{x:,}: waited %{customdata[3]:.3g} ms for transfers in a "
                                        "%{customdata[0]:.4g} ms call (%{y:.2f} % of compute)",
                                  "zh": "N = %{x:,}：在一次 %{customdata[0]:.4g} ms 的调用中等待传输 %{customdata[3]:.3g} ms"
                                        "（计算时间的 %{y:.2f} %）"},
    "ring.col_compute_direct": {"en": "compute: ring − waits (ms)", "zh": "计算：环 − 等待（ms）"},
    "ring.col_exposed_direct": {"en": "waits for transfers (ms)", "zh": "等待传输（ms）"},
    "ring.col_hidden": {"en": "transfer hidden", "zh": "被掩盖的传输"},
    "ring.hidden_imbalance": {"en": "none: waits > transfers (load imbalance)", "zh": "无：等待 > 传输（负载不均）"},
    "ring.col_peak": {"en": "peak per GPU (GiB)", "zh": "每块 GPU 峰值（GiB）"},
    "ring.col_peak_ratio": {"en": "÷ one GPU's peak", "zh": "÷ 单 GPU 峰值"},
    "ring.overlap_direct": {
        "en": "Transfers next to compute, timed directly ({pass_}, {mask}). Each ring step starts sending the K/V "
              "block it holds, computes, then waits for the next block; CUDA events around that wait give the "
              "transfer time the compute did not hide (the slowest GPU's sum per call). A hidden share only means "
              "something per layout:",
        "zh": "传输与计算并排看，直接计时（{pass_}，{mask}）。环的每一步先把手里的 K/V 块发出去，然后计算，再等下一块"
              "到达；在这段等待前后记录的 CUDA 事件给出计算没能掩盖的传输时间（每次调用取最慢那块 GPU 的总和）。被掩盖的"
              "比例只能按切分方式分别来看："},
    "ring.overlap_hidden": {
        "en": "{layout}: the transfers alone take {c_lo}–{c_hi} % of the compute and the GPUs waited {e_lo}–{e_hi} "
              "ms per call: {h_lo}–{h_hi} % of the transfer time was hidden under compute.",
        "zh": "{layout}：只传不算的时间是计算的 {c_lo}–{c_hi} %，GPU 每次调用等待 {e_lo}–{e_hi} ms：传输时间的 "
              "{h_lo}–{h_hi} % 被计算掩盖了。"},
    "ring.overlap_longer": {
        "en": "{layout} at N = {ns}: the GPUs waited {w_lo}–{w_hi} ms per call, longer than the transfers alone "
              "take ({t_lo}–{t_hi} ms): the wait includes a neighbour still computing what it sends (the work is "
              "balanced, {busy}× between the busiest and the least busy GPU), so no hidden share is given for these "
              "cells.",
        "zh": "{layout}，N = {ns}：GPU 每次调用等待 {w_lo}–{w_hi} ms，比只传不算的时间（{t_lo}–{t_hi} ms）还长：这段"
              "等待包含了邻居仍在计算它要发出的数据（工作量是均衡的，最忙与最闲的 GPU 之比为 {busy}），所以这些格子不给出"
              "被掩盖的比例。"},
    "ring.overlap_imbalance": {
        "en": "{layout} at N = {ns}: the GPUs waited {w_lo}–{w_hi} ms per call, longer than the transfers alone "
              "take ({t_lo}–{t_hi} ms). That wait is load imbalance, not the link: the busiest GPU does {busy}× the "
              "least busy one's work, and a GPU that finishes its part waits for a neighbour that sends the next "
              "block only after its own compute. No hidden share is given for these cells.",
        "zh": "{layout}，N = {ns}：GPU 每次调用等待 {w_lo}–{w_hi} ms，比只传不算的时间（{t_lo}–{t_hi} ms）还长。"
              "这段等待是负载不均，而不是链路：最忙的 GPU 的工作量是最闲的 {busy} 倍，先算完自己部分的 GPU 要等邻居，"
              "而邻居算完自己的部分才发出下一个块。这些格子不给出被掩盖的比例。"},
    "ring.overlap_direct_bwd": {
        "en": "In the backward a wait also covers the neighbour still computing the gradients it sends: dK and "
              "dV travel with their block and leave only after it is computed, the last hop overlaps nothing, and "
              "with the contiguous causal layout the busy last GPU keeps the others waiting. So this pass's share "
              "measures waiting, not the link alone.",
        "zh": "反向传播中，一次等待还包括邻居仍在计算它要发来的梯度：dK、dV 随各自的块传递，算完才出发；最后一跳没有计算"
              "可以重叠；在连续切分加因果掩码时，最忙的最后一块 GPU 让其他 GPU 等着。所以这一过程的比例衡量的是等待，"
              "不只是链路。"},
    "ring.memory_note": {
        "en": "Memory per GPU at N = {n} ({layout}, {mask}, forward): measured {peak} GiB, {ratio}× one GPU's {one} "
              "GiB. What a ring GPU holds: its q, k, v shards {inputs} GiB, a second K/V block in flight (the one "
              "arriving while it computes on the one it holds) {receive} GiB, the output accumulator {acc} GiB, one "
              "block's output {blk} GiB{slices}; together {model} GiB, {gap} MiB under the measurement (scratch "
              "this account leaves out). One GPU holds q, k, v and the output, {one_model} GiB: a ring GPU needs "
              "{frac}× that, far more than the half its shards alone would suggest, because the block in flight and "
              "the accumulators come on top. The chunked forward (asked for with chunks='auto' or a number) sends "
              "each block in sub-chunks to keep the block in flight small.",
        "zh": "N = {n} 时每块 GPU 的显存（{layout}，{mask}，前向）：实测 {peak} GiB，是单 GPU {one} GiB 的 {ratio} 倍。"
              "环中一块 GPU 持有：自己的 q、k、v 分片 {inputs} GiB，第二个在途的 K/V 块（计算手上这块时正在到达的那块）"
              "{receive} GiB，输出累加器 {acc} GiB，一个块的输出 {blk} GiB{slices}；合计 {model} GiB，比实测少 {gap} MiB"
              "（此处未计入的临时空间）。单 GPU 持有 q、k、v 和输出，共 {one_model} GiB：环中一块 GPU 需要它的 {frac} 倍，"
              "远不止分片本身所暗示的一半，因为在途的块和累加器都要另算。分块前向（用 chunks='auto' 或一个数开启）把每个块"
              "分成子块发送，让在途的块保持很小。"},
    "ring.memory_note_chunked": {
        "en": "Memory per GPU at N = {n} ({layout}, {mask}, forward, each K/V block sent in {s} sub-chunks): measured "
              "{peak} GiB, {ratio}× one GPU's {one} GiB. What a ring GPU holds: its q, k, v shards {inputs} GiB, "
              "the output and one query slab's float32 accumulator {acc} GiB, two buffers of one K/V sub-chunk (the "
              "one it computes on and sends on, the one arriving) {receive} GiB, one piece's output {blk} "
              "GiB{slices}; together {model} GiB, {gap} MiB under the measurement (scratch this account leaves out). "
              "One GPU holds q, k, v and the output, {one_model} GiB; on two GPUs the shards and the output alone "
              "are half of that. Each query slab meets every block again, one sub-chunk at a time: {s} times the "
              "bytes on the link for a small arriving buffer, each transfer running under the compute on the "
              "sub-chunk before it.",
        "zh": "N = {n} 时每块 GPU 的显存（{layout}，{mask}，前向，每个 K/V 块分 {s} 个子块发送）：实测 {peak} GiB，是单 GPU "
              "{one} GiB 的 {ratio} 倍。环中一块 GPU 持有：自己的 q、k、v 分片 {inputs} GiB，输出和一个查询分段的 float32 "
              "累加器 {acc} GiB，两个 K/V 子块缓冲（正在计算并转发的一个、正在到达的一个）{receive} GiB，一个计算片的输出 "
              "{blk} GiB{slices}；合计 {model} GiB，比实测少 {gap} MiB（此处未计入的临时空间）。单 GPU 持有 q、k、v 和"
              "输出，共 {one_model} GiB；两块 GPU 时，分片和输出本身正好是它的一半。每个查询分段都要再与每个块相遇，"
              "一次一个子块：链路上的字节是 {s} 倍，换来很小的到达缓冲，每次传输都与前一个子块的计算同时进行。"},
    "ring.memory_slices_chunked": {"en": ", the contiguous copies the kernel takes of a piece's q rows (and K/V "
                                         "rows) {slices} GiB",
                                   "zh": "，kernel 所用计算片的 q 行（及 K/V 行）的连续副本 {slices} GiB"},
    "ring.memory_slices": {"en": ", the contiguous copies of the half-shard slices zigzag computes on {slices} GiB",
                           "zh": "，zigzag 计算所用半个分片切片的连续副本 {slices} GiB"},
    "ring.hover_time": {"en": "N = %{x:,}: %{y:.4g} ms (%{customdata[0]} runs, p20–p80 %{customdata[1]:.4g}–"
                              "%{customdata[2]:.4g})",
                        "zh": "N = %{x:,}：%{y:.4g} ms（%{customdata[0]} 次，p20–p80 %{customdata[1]:.4g}–"
                              "%{customdata[2]:.4g}）"},
    "ring.hover_speedup": {"en": "N = %{x:,}: %{y:.2f}×", "zh": "N = %{x:,}：%{y:.2f} 倍"},
    "ring.hover_comm": {"en": "N = %{x:,}: transfers alone %{customdata[2]:.4g} ms = %{y:.2f} % of compute only "
                              "(%{customdata[1]:.4g} ms)",
                        "zh": "N = %{x:,}：只传不算 %{customdata[2]:.4g} ms，是只算不传（%{customdata[1]:.4g} ms）的 "
                              "%{y:.2f} %"},
    "ring.hover_exposed": {"en": "N = %{x:,}: ring %{customdata[0]:.4g} ms − compute only %{customdata[1]:.4g} ms = "
                                 "%{customdata[3]:.3g} ms (%{y:.2f} % of compute)",
                           "zh": "N = %{x:,}：环 %{customdata[0]:.4g} ms − 只算不传 %{customdata[1]:.4g} ms = "
                                 "%{customdata[3]:.3g} ms（计算的 %{y:.2f} %）"},
    "ring.hover_memory": {"en": "N = %{x:,}: %{y:.3g} GiB", "zh": "N = %{x:,}：%{y:.3g} GiB"},
}
