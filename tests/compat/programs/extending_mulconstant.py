"""In the spirit of the "Extending PyTorch" note: MulConstant with a non-tensor argument, written
both in the combined style and with a separate setup_context."""
import torch
from torch.autograd import Function


class MulConstant(Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


class MulConstantSeparate(Function):
    @staticmethod
    def forward(tensor, constant):
        return tensor * constant

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, constant = inputs
        ctx.constant = constant

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None


torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = MulConstant.apply(x, 5.5)
y.sum().backward()
print(y)
print(x.grad)

x2 = torch.randn(2, 3, requires_grad=True)
z = MulConstantSeparate.apply(x2, -2.0)
(z * z).sum().backward()
print(z)
print(x2.grad)
print(x2.grad.shape, z.requires_grad, z.is_leaf)
