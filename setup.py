"""Metadata lives in setup.cfg; this file only ships the startup hook.

``lm_eval_audio.pth`` must land at the top of site-packages, where the interpreter
runs it at start-up (see lm_eval_audio/harness/startup.py for why lm-eval 0.4.13 needs it).
Wheels get it through build_py; editable installs through editable_wheel, which
otherwise writes only its own ``__editable__`` hook.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.editable_wheel import editable_wheel

HOOK = Path(__file__).parent / "lm_eval_audio.pth"


class BuildPyWithHook(build_py):
    def run(self):
        super().run()
        if not self.editable_mode:
            self.copy_file(str(HOOK), str(Path(self.build_lib) / HOOK.name))

    def get_outputs(self, include_bytecode=True):
        return super().get_outputs(include_bytecode) + [str(Path(self.build_lib) / HOOK.name)]


class EditableWheelWithHook(editable_wheel):
    def _run_build_commands(self, dist_name, unpacked_wheel, build_lib, tmp_dir):
        result = super()._run_build_commands(dist_name, unpacked_wheel, build_lib, tmp_dir)
        shutil.copy(HOOK, Path(unpacked_wheel) / HOOK.name)
        return result


setup(cmdclass={"build_py": BuildPyWithHook, "editable_wheel": EditableWheelWithHook})
