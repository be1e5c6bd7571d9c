"""Strings of presenter mode: the sidebar toggle and the bar at the top of the page while presenting."""

STRINGS = {
    "present.toggle": {"en": "Presenter mode", "zh": "演示模式"},
    "present.toggle_help": {
        "en": "For the front of a classroom: larger text, the sidebar folded away, presets and autoplay at the top, "
              "arrow keys step. Share it as a link with ?present=1.",
        "zh": "适合课堂投影：字号更大，侧边栏收起，预设和自动播放放在页面顶部，方向键逐步前进。"
              "也可以用带 ?present=1 的链接直接打开。"},
    "present.bar": {"en": "**Presenter mode**", "zh": "**演示模式**"},
    "present.exit": {"en": "Leave presenter mode", "zh": "退出演示模式"},
    "present.keys": {
        "en": "Keys: ← / → previous / next step, Home / End first / last. Autoplay and its speed are above the "
              "steps. The sidebar (›, top left) still holds every setting.",
        "zh": "按键：← / → 上一步 / 下一步，Home / End 第一步 / 最后一步。自动播放及其速度位于步骤控件上方。"
              "所有设置仍在侧边栏中（左上角 ›）。"},
}
