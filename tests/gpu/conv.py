# One convolution through PyTorch on the GPU, printing the cuDNN version PyTorch reports:
# what `cdm doctor -- python3 conv.py` watches in tests/gpu/run.sh.
import sys

import torch

print("torch", torch.__version__, "runs cuDNN", torch.backends.cudnn.version(), flush=True)
x = torch.randn(8, 3, 64, 64, device="cuda")
w = torch.randn(16, 3, 3, 3, device="cuda")
torch.backends.cudnn.enabled = True
y = torch.nn.functional.conv2d(x, w, padding=1)
torch.cuda.synchronize()
print("conv2d on", torch.cuda.get_device_name(0), "->", tuple(y.shape), flush=True)
sys.exit(0)
