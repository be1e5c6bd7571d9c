"""Strings of chart export: the per-chart export menu and the sidebar's zip of every chart on the page."""

STRINGS = {
    "export.menu": {"en": "Export", "zh": "导出"},
    "export.menu_help": {
        "en": "Download this chart as an image (PNG for slides, SVG scalable), as an interactive page that works "
              "offline (HTML), or its data (CSV, JSON). File names carry the configuration.",
        "zh": "把这张图下载为图片（PNG 适合幻灯片，SVG 为矢量图）、可离线打开的交互网页（HTML），"
              "或其数据（CSV、JSON）。文件名中带有当前配置。"},
    "export.chart": {"en": "Chart", "zh": "图表"},
    "export.file": {"en": "File: `{stem}`", "zh": "文件名：`{stem}`"},
    "export.fmt_png": {"en": "PNG image (2560 px wide)", "zh": "PNG 图片（宽 2560 像素）"},
    "export.fmt_svg": {"en": "SVG image (scalable)", "zh": "SVG 矢量图"},
    "export.fmt_html": {"en": "Interactive HTML (offline)", "zh": "交互式 HTML（可离线）"},
    "export.fmt_csv": {"en": "Data as CSV", "zh": "数据（CSV）"},
    "export.fmt_json": {"en": "Data as JSON", "zh": "数据（JSON）"},
    "export.fmt_png_help": {"en": "Rendered on the server by a headless Chromium; 1280 × chart height at 2× scale.",
                            "zh": "由服务器上的无界面 Chromium 渲染；1280 × 图高，2 倍缩放。"},
    "export.fmt_svg_help": {"en": "Rendered on the server by a headless Chromium; stays sharp at any size.",
                            "zh": "由服务器上的无界面 Chromium 渲染；任意缩放都保持清晰。"},
    "export.fmt_html_help": {"en": "One file of about 5 MB with plotly.js inside: opens in any browser without a "
                                   "network. Prepared when you click.",
                             "zh": "单个约 5 MB 的文件，内含 plotly.js：无需网络即可在任何浏览器中打开。点击时才生成。"},
    "export.fmt_csv_help": {"en": "One row per point (per cell for grids); the configuration is in the '#' lines "
                                  "at the top.",
                            "zh": "每个数据点一行（网格图为每个格子一行）；开头以 '#' 开始的几行记录了配置。"},
    "export.fmt_json_help": {"en": "Every trace's x, y, z, text and names, with the configuration. NaN and ±∞ are "
                                   "null.",
                             "zh": "每条曲线的 x、y、z、文本和名称，以及配置。NaN 与 ±∞ 记为 null。"},
    "export.no_browser": {"en": "PNG and SVG are not available on this server: {why}. HTML, CSV and JSON still work.",
                          "zh": "此服务器无法生成 PNG 和 SVG：{why}。HTML、CSV 和 JSON 仍可下载。"},
    # why images cannot be made: flashviz.infra.images.Why's codes; {detail} and {path} arrive as code spans
    "export.why_no_browser": {"en": "no Chromium or Chrome found (on Debian: `apt-get install chromium`)",
                              "zh": "找不到 Chromium 或 Chrome（Debian 上安装：`apt-get install chromium`）"},
    "export.why_no_browser_at": {"en": "no browser at `BROWSER_PATH`={path}",
                                 "zh": "`BROWSER_PATH` 所指处没有浏览器：{path}"},
    "export.why_start_failed": {"en": "Chromium at {path} did not start ({detail})",
                                "zh": "位于 {path} 的 Chromium 没有启动（{detail}）"},
    "export.why_retry": {"en": "{why}; next try in {s} s", "zh": "{why}；{s} 秒后再试"},
    "export.why_hung": {"en": "the export browser did not answer within {s} s; it is restarted",
                        "zh": "用于导出的浏览器在 {s} 秒内没有响应，正在重启"},
    "export.why_timeout": {"en": "Chromium did not finish the image within {s} s",
                           "zh": "Chromium 没能在 {s} 秒内生成图片"},
    "export.why_render_failed": {"en": "Chromium could not make the image ({detail})",
                                 "zh": "Chromium 无法生成这张图片（{detail}）"},
    "export.why_restarted": {"en": "{why}; the browser is restarted for the next image",
                             "zh": "{why}；下一张图片会用重启后的浏览器"},
    "export.why_queue": {"en": "other images were being made for more than {s} s; try again",
                         "zh": "其他图片已排队生成超过 {s} 秒；请重试"},
    "export.image_hung": {
        "en": "{fmt} cannot be made right now: {why}. Try again in a few seconds, or use the camera button in the "
              "chart's toolbar, which makes the image in your browser.",
        "zh": "现在无法生成 {fmt}：{why}。请几秒后重试，或使用图表工具栏里的相机按钮，它在你的浏览器里生成图片。"},
    "export.image_hung_browser": {
        "en": "{fmt} cannot be made right now: the server's export browser did not answer within {s} s. It is being "
              "restarted; the download follows if the new one starts. Meanwhile the camera button in the chart's "
              "toolbar makes the image in your browser.",
        "zh": "现在无法生成 {fmt}：服务器上用于导出的浏览器在 {s} 秒内没有响应，正在重启；新浏览器启动后下载会继续。"
              "在此期间，图表工具栏里的相机按钮可以在你的浏览器里生成图片。"},
    "export.image_failed": {"en": "The last PNG or SVG failed: {why}. HTML, CSV and JSON are not affected.",
                            "zh": "上一次生成 PNG 或 SVG 失败：{why}。HTML、CSV 和 JSON 不受影响。"},

    # the sidebar: one zip for the page
    "export.header": {"en": "Export", "zh": "导出"},
    "export.zip": {"en": "Download all charts and data (zip)", "zh": "下载本页全部图表与数据（zip）"},
    "export.zip_help": {
        "en": "The {n} charts on this page as offline HTML, PNG and SVG, with their data (CSV, JSON) and a manifest "
              "of the configuration. Prepared when you click (a few seconds).",
        "zh": "本页的 {n} 张图：离线 HTML、PNG 和 SVG，以及数据（CSV、JSON）和记录配置的清单文件。"
              "点击时才生成（需要几秒）。"},
    "export.zip_none": {"en": "This page has no charts yet.", "zh": "本页还没有图表。"},
    "export.zip_no_images": {"en": "Without a browser on the server the zip holds HTML, CSV and JSON only ({why}).",
                             "zh": "服务器上没有浏览器，zip 中只有 HTML、CSV 和 JSON（{why}）。"},
}
