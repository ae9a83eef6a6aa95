"""The ossa Python package: pure Python on ctypes, plus the C libraries.

``pip install --no-build-isolation ./python`` (from a checkout, with
Debian's python3-pip, python3-setuptools and python3-numpy) configures
and builds libossa-runtime, libossa and libossa-render with cmake (as
``make build`` does, Release, without tests and benchmarks) and puts the
three shared libraries in ``ossa/_libs/``, where the package looks for
them after OSSA_LIBRARY_PATH.

Environment:
  OSSA_USE_SYSTEM_LIBRARY=1  build nothing: the package then finds
                             installed libraries (make install, ldconfig)
  OSSA_CMAKE_BUILD_DIR=DIR   the cmake build directory (default: under
                             setuptools' build_temp); a kept one makes
                             the next install an incremental build
  OSSA_CMAKE_ARGS="..."      more arguments for cmake's configure step
"""

import os
import re
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBRARIES = ("ossa-runtime", "ossa", "ossa-render")


def version():
    """The library's version, from the one place it is set (common.h)."""
    header = os.path.join(ROOT, "include", "ossa", "common.h")
    if os.path.exists(header):
        text = open(header, encoding="utf-8").read()
        parts = [re.search(r"#define OSSA_VERSION_%s (\d+)" % p, text).group(1)
                 for p in ("MAJOR", "MINOR", "PATCH")]
        return ".".join(parts)
    text = open(os.path.join(HERE, "ossa", "__init__.py"), encoding="utf-8").read()
    return re.search(r'__version__ = "([^"]+)"', text).group(1)


class BuildWithLibraries(build_py):
    """build_py, then the C libraries built by cmake into ossa/_libs."""

    def run(self):
        super().run()
        if os.environ.get("OSSA_USE_SYSTEM_LIBRARY"):
            return
        if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
            self.announce("ossa: no C sources beside the package; using installed libraries", 2)
            return
        cmake = shutil.which("cmake")
        if not cmake:
            raise SystemExit("ossa: cmake is needed to build the C libraries "
                             "(Debian: apt-get install cmake; or set OSSA_USE_SYSTEM_LIBRARY=1)")
        build_temp = self.get_finalized_command("build").build_temp
        build_dir = os.path.abspath(os.environ.get("OSSA_CMAKE_BUILD_DIR")
                                    or os.path.join(build_temp, "cmake"))
        configure = [cmake, "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                     "-DOSSA_TESTS=OFF", "-DOSSA_BENCH=OFF", "-DCMAKE_SKIP_RPATH=ON"]
        configure += shlex.split(os.environ.get("OSSA_CMAKE_ARGS", ""))
        subprocess.check_call(configure)
        jobs = os.environ.get("JOBS") or str(min(8, os.cpu_count() or 1))
        targets = ["ossa_runtime_shared", "ossa_shared", "ossa_render_shared"]
        subprocess.check_call([cmake, "--build", build_dir, "-j", jobs, "--target"] + targets)
        major, minor = version().split(".")[:2]
        out = os.path.join(self.build_lib, "ossa", "_libs")
        os.makedirs(out, exist_ok=True)
        for name in LIBRARIES:
            # The soname the package opens (lib*.so.MAJOR.MINOR before 1.0),
            # as a file of its own: wheels keep no symbolic links.
            soname = "lib%s.so.%s" % (name, "%s.%s" % (major, minor) if major == "0" else major)
            shutil.copyfile(os.path.realpath(os.path.join(build_dir, soname)),
                            os.path.join(out, soname))


class BinaryDistribution(Distribution):
    """The package carries shared libraries: a platform wheel."""

    def has_ext_modules(self):
        return True


setup(
    name="ossa",
    version=version(),
    description="Skeletal animated models (IQM, IQE, glTF, FBX, MD5, SMD, OBJ, ...): "
                "read, write, convert, sample, skin and render, on the ossa C library",
    long_description=open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    if os.path.exists(os.path.join(HERE, "README.md")) else "",
    long_description_content_type="text/markdown",
    packages=["ossa"],
    package_data={"ossa": ["py.typed", "*.pyi"]},
    python_requires=">=3.9",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithLibraries},
    distclass=BinaryDistribution,
    zip_safe=False,
)
