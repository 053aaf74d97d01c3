"""What the built-site checks share: the built site (``KERNELLAB_SITE``) and its languages."""

import os
import re
from pathlib import Path

SITE = Path(os.environ["KERNELLAB_SITE"])
LANGS = ("en", "zh_CN")
CJK = re.compile(r"[\u4e00-\u9fff]")  # a Chinese character
