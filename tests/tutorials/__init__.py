"""TensorFlow's official tutorials, cell by cell on small random data, through every magic."""
