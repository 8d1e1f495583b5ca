"""Writers that hand Kasauti data to other tools (plain Python, no Django): lm_eval."""
