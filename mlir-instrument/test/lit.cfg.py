# lit configuration of mlir-instrument's FileCheck tests (run by CTest as mlir_instrument_lit).
import os
import shutil

import lit.formats

config.name = "mlir-instrument"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mlir_instrument_binary_dir, "test")

# proton-opt from this build first, then LLVM 19's FileCheck and not.
config.environment["PATH"] = os.pathsep.join(
    [config.proton_opt_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%scripts", config.mlir_instrument_scripts_dir))
# The proton-opt under test, for scripts that would otherwise look for one themselves.
config.substitutions.append(("%proton_opt", os.path.join(config.proton_opt_dir, "proton-opt")))

# The end-to-end test of scripts/compile-kernel.sh needs CUDA's ptxas (and LLVM 19's llc, opt,
# mlir-translate, which llvm-19-tools and mlir-19-tools bring).
ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
if os.access(ptxas, os.X_OK) or shutil.which("ptxas"):
    config.available_features.add("ptxas")
