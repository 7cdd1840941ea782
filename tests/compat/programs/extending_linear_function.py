"""In the spirit of the "Extending PyTorch" note: a LinearFunction whose backward computes only
the gradients that ctx.needs_input_grad asks for, a Module around it, and gradcheck."""
import torch
import torch.nn as nn
from torch.autograd import Function, gradcheck

calls = []


class LinearFunction(Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        calls.append(tuple(ctx.needs_input_grad))
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class Linear(nn.Module):
    def __init__(self, input_features, output_features, bias=True):
        super().__init__()
        self.input_features = input_features
        self.output_features = output_features
        self.weight = nn.Parameter(torch.empty(output_features, input_features))
        if bias:
            self.bias = nn.Parameter(torch.empty(output_features))
        else:
            self.register_parameter("bias", None)
        self.weight.data.uniform_(-0.1, 0.1)
        if self.bias is not None:
            self.bias.data.uniform_(-0.1, 0.1)

    def forward(self, input):
        return LinearFunction.apply(input, self.weight, self.bias)

    def extra_repr(self):
        return f"input_features={self.input_features}, output_features={self.output_features}"


torch.manual_seed(0)
layer = Linear(4, 3)
print(layer)
x = torch.randn(5, 4)
out = layer(x)
out.pow(2).sum().backward()
print(layer.weight.grad)
print(layer.bias.grad)
print(calls)

input = (torch.randn(6, 4, dtype=torch.double, requires_grad=True),
         torch.randn(3, 4, dtype=torch.double, requires_grad=True))
print("gradcheck", gradcheck(LinearFunction.apply, input, eps=1e-6, atol=1e-4))
print(calls[-1])
frozen = (torch.randn(6, 4, dtype=torch.double),
          torch.randn(3, 4, dtype=torch.double, requires_grad=True),
          torch.randn(3, dtype=torch.double, requires_grad=True))
print("gradcheck", gradcheck(LinearFunction.apply, frozen))
print(calls[-1])
print("final", layer.weight.tolist(), layer.bias.tolist())
