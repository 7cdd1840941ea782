"""In the spirit of the "Extending PyTorch" note: MyCube returns x**3 and its derivative 3x**2
as a second output, saves both input and that output, and supports double backward."""
import torch


class MyCube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        result = x ** 3
        dx = 3 * x ** 2
        return result, dx

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, = inputs
        result, dx = output
        ctx.save_for_backward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        result = grad_output * dx + grad_dx * 6 * x
        return result


def my_cube(x):
    result, dx = MyCube.apply(x)
    return result


x = torch.tensor(-1.5, requires_grad=True)
y = my_cube(x)
grad_x, = torch.autograd.grad(y, x, create_graph=True)
print("first", grad_x.item())
grad2_x, = torch.autograd.grad(grad_x, x)
print("second", grad2_x.item())

xs = torch.tensor([-1.5, 0.5, 2.0], dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(my_cube, (xs,)))
print(torch.autograd.gradgradcheck(my_cube, (xs,)))
