import toolz

# Example
def example_function()
