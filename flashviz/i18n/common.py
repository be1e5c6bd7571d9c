"""Strings shared by several pages: navigation, the shared configuration, step controls, errors."""

STRINGS = {
    "common.app_title": {"en": "flashviz: FlashAttention, step by step", "zh": "flashviz：一步一步看懂 FlashAttention"},
    "common.language": {"en": "Language", "zh": "语言"},
}
