print(Introduction.text)
