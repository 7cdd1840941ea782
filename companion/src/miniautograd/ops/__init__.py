"""Built-in operations, one ``Op`` each: forward on arrays, backward on differentiable tensors.

- ``arithmetic``: elementwise maths (``+ - * / **``, exp, log, relu, ...)
- ``reduction``: sum, mean, var, std, max, min
- ``shape``: views and copies (reshape, transpose, indexing, cat, ...)
- ``linalg``: matrix products
- ``nn_ops``: softmax, log-softmax and losses
"""
