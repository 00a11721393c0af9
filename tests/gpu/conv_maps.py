# One convolution through PyTorch or JAX (argv[1]) on the GPU, then every cuDNN library the
# process maps, read from /proc/self/maps: what tests/gpu/run.sh checks under cdm exec.
import os
import sys

if sys.argv[1] == "torch":
    import torch

    x = torch.randn(8, 3, 64, 64, device="cuda")
    w = torch.randn(16, 3, 3, 3, device="cuda")
    y = torch.nn.functional.conv2d(x, w, padding=1)
    torch.cuda.synchronize()
    print("torch", torch.__version__, "runs cuDNN", torch.backends.cudnn.version(), flush=True)
else:
    import jax
    import jax.numpy as jnp

    x = jnp.ones((8, 64, 64, 3))
    k = jnp.ones((3, 3, 3, 16))
    y = jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y.block_until_ready()
    print("jax", jax.__version__, "conv", y.shape, flush=True)
maps = sorted({os.path.realpath(l.split()[-1]) for l in open("/proc/self/maps") if "libcudnn" in l})
for m in maps:
    print("map", m)
