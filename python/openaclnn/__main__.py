"""python -m openaclnn: what this installation runs on (as `openaclnn info` for the C tool)."""
import openaclnn
from openaclnn import _binding


def main():
    info = _binding.info()
    print(f"OpenACLNN {openaclnn.__version__} (Python package at {openaclnn.__path__[0]})")
    print(f"library:        {info['library']}")
    print(f"SIMD target:    {info['simd_target']}")
    print(f"threads:        {info['threads']}")


if __name__ == "__main__":
    main()
