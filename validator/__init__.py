"""The validator: static checks on a resolved pack, and playouts through the interpreter."""
