"""Builds the openaclnn wheel through the project's CMake build: the extension and
libopenaclnn are compiled there, and the wheel carries the library beside the extension, which
finds it by the RUNPATH $ORIGIN (so the installed package needs no LD_LIBRARY_PATH).

Environment: CMAKE_BUILD_PARALLEL_LEVEL (compile jobs; default: the CPUs), OPENACLNN_CMAKE_ARGS
(more -D options, e.g. -DOPENACLNN_BUILD_CUDA=ON for the CUDA backend beside the library)."""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = Path(__file__).resolve().parent


def cmake_version():
    """The one version of the project: CMakeLists.txt's project(... VERSION x.y.z)."""
    text = (SOURCE / "CMakeLists.txt").read_text()
    return re.search(r"project\(\s*OpenACLNN\s+VERSION\s+([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    """Configures and builds the package's targets with CMake, then copies the assembled
    package (python/openaclnn in the CMake build tree) and libopenaclnn into the wheel."""

    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        options = [
            "-DCMAKE_BUILD_TYPE=Release", f"-DPython3_EXECUTABLE={sys.executable}",
            "-DOPENACLNN_BUILD_TESTS=OFF", "-DOPENACLNN_BUILD_EXAMPLES=OFF",
            "-DOPENACLNN_BUILD_CUDA=OFF", "-DOPENACLNN_PYTHON_WHEEL=ON",
        ] + shlex.split(os.environ.get("OPENACLNN_CMAKE_ARGS", ""))
        subprocess.run(["cmake", "-S", str(SOURCE), "-B", str(build)] + options, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "openaclnn_python", "-j",
                        jobs], check=True)
        package = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        shutil.copytree(build / "python" / "openaclnn", package, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__"))
        # The extension's NEEDED entry is the SONAME; copied as a file, not a link.
        for library in (build / "lib64").glob("libopenaclnn*.so.[0-9]"):
            shutil.copy(library, package / library.name)


(SOURCE / "build-wheel").mkdir(exist_ok=True)
setup(
    version=cmake_version(),
    # No package discovery (it would take src/'s folders for packages): build_ext puts the
    # whole package, assembled by CMake, into the wheel.
    packages=[],
    ext_modules=[Extension("openaclnn._binding", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # Beside CMake's build/ (git-ignored as build*/), not in it.
    options={"build": {"build_base": "build-wheel"}, "egg_info": {"egg_base": "build-wheel"}},
    zip_safe=False,
)
