from lm_eval_audio.cli import main

main()
